# frozen_string_literal: true

require "test_helper"
require "deckhand/embedded"

class EmbeddedTest < Minitest::Test
  def teardown
    @embedded&.stop
    super
  end

  def test_runs_jobs_in_this_process_with_start_and_stop_hooks
    events = []
    @embedded = Deckhand.embed(new_config) { |config| config.concurrency = 2 }
    @embedded.on_start { |e| events << [:start, e.running?] }.on_stop { |e| events << [:stop, e.running?] }
    Deckhand.config = @embedded.config
    @embedded.start
    assert_equal [[:start, true]], events
    assert @embedded.config.booted?
    identity = @embedded.identity
    assert_equal ::Process.pid, JSON.parse(redis.call("HGET", identity, "info"))["pid"]

    jid = RecordJob.perform_async("embedded")
    wait_for(message: "the job to run") { Deckhand::TestJobs.runs.include?([jid, ["embedded"]]) }

    refute Deckhand::Lifecycle.stopping?
    @embedded.stop
    assert Deckhand::Lifecycle.stopping?, "jobs asking Active Job's stopping? would not know"
    assert_equal [[:start, true], [:stop, false]], events
    refute @embedded.running?
    assert_equal 0, redis.call("SISMEMBER", "processes", identity)
    @embedded.stop # twice is fine
    assert_equal 2, events.size
  end

  def test_stop_hands_running_jobs_back
    @embedded = Deckhand.embed(new_config(concurrency: 1, timeout: 0.2)).start
    jid = SleepJob.perform_async(5)
    wait_for(message: "the job to start") { Deckhand::TestJobs.runs.include?([jid, :start]) }
    @embedded.stop
    assert_equal [jid], jobs_in("default").map { |job| job["jid"] }
  end

  def test_a_stop_from_the_dashboard_stops_the_server_not_the_host
    config = new_config(heartbeat_interval: 0.05)
    before = Thread.list
    @embedded = Deckhand.embed(config).start
    identity = @embedded.identity
    redis.call("LPUSH", "#{identity}-signals", "TSTP")
    wait_for(message: "quiet") { redis.call("HGET", identity, "quiet") == "true" }
    assert @embedded.running?
    redis.call("LPUSH", "#{identity}-signals", "TERM")
    wait_for(message: "the embedded server to stop") { !@embedded.running? && redis.call("SISMEMBER", "processes", identity).zero? }
    # Only this server's threads: another test's leftovers are not this one's concern.
    wait_for(message: "the stopping thread to end") { (Thread.list - before).none? { |t| t.name.to_s.start_with?("deckhand") } }
  end

  def test_an_embedded_server_runs_once_and_a_failing_hook_is_logged
    log = StringIO.new
    config = new_config
    config.logger = ::Logger.new(log)
    @embedded = Deckhand.embed(config)
    @embedded.on_start { raise "hook failed" }
    @embedded.start
    assert_includes log.string, "on_start hook raised RuntimeError: hook failed"
    assert_raises(Deckhand::Error) { @embedded.start }
    assert_raises(ArgumentError) { Deckhand.embed({}) }
  end
end
