# frozen_string_literal: true

require "test_helper"
require "tmpdir"

# redis-server SIGKILLed and restarted on its port, with append-only persistence
# (fsync always): servers reconnect by themselves and carry on, nothing
# acknowledged is lost, and no live process has its jobs taken.
class RedisRestartTest < Minitest::Test
  OUTAGE = 4 # seconds: longer than heartbeat_ttl, so every process record expires

  def setup
    super
    @dir = Dir.mktmpdir("deckhand-restart")
    @server = redis_server.start
    @direct = RedisClient.new(url: @server.url, reconnect_attempts: 5)
    @launchers = []
  end

  def teardown
    @launchers.each(&:stop)
    @direct&.close
    @server&.stop
    FileUtils.rm_rf(@dir)
    super
  end

  def redis_server(port = nil) = Deckhand::DevRedis.new(dir: @dir, port: port, persistent: true, extra: %w[--appendfsync always])

  def launch(**settings)
    config = new_config(redis: {url: @server.url}, timeout: 2, heartbeat_ttl: 3, scheduler_interval: 0.05, **settings)
    launcher = Deckhand::Server::Launcher.new(config.freeze!, on_signal: ->(_) {})
    @launchers << launcher
    launcher.start
  end

  # A pooled connection opened before the restart fails once, as any client's
  # would; the push then raises (nothing acknowledged) and the next one reconnects.
  def push(client, item)
    attempts = 0
    begin
      client.push(item)
    rescue RedisClient::ConnectionError, Deckhand::ConnectionError
      attempts += 1
      retry if attempts < 10
      raise
    end
  end

  def started(jid) = Deckhand::TestJobs.runs.count { |j, event| j == jid && event == :start }

  def test_servers_reconnect_and_continue_and_no_live_process_loses_its_jobs
    # A beats slowly, B reaps quickly: after the restart B would judge A before
    # A's next beat, were it not for the wait on a freshly started Redis.
    slow = launch(queues: ["slow"], concurrency: 1, heartbeat_interval: 1, reaper_interval: 5)
    launch(queues: ["default"], concurrency: 2, heartbeat_interval: 0.2, reaper_interval: 0.1)
    client = Deckhand::Client.new(config: new_config(redis: {url: @server.url}))
    parked = Array.new(200) { |i| client.push("class" => "RecordJob", "args" => [i], "queue" => "parked") }
    sleeper = client.push("class" => "SleepJob", "args" => [OUTAGE + 2], "queue" => "slow")
    wait_for(message: "the long job to start") { started(sleeper) == 1 }

    @server.kill
    sleep OUTAGE # the outage itself
    @server = redis_server(@server.port).start
    restarted = Time.now.to_f

    assert_equal parked.size, @direct.call("LLEN", "queue:parked"), "acknowledged pushes lost"
    after = Array.new(20) { |i| push(client, "class" => "RecordJob", "args" => ["after-#{i}"]) }
    scheduled = push(client, "class" => "RecordJob", "args" => ["scheduled"], "at" => Time.now.to_f + 0.3)
    wait_for(message: "jobs pushed after the restart") { (after + [scheduled] - Deckhand::TestJobs.runs.map(&:first)).empty? }
    @launchers.each do |launcher|
      wait_for(message: "#{launcher.identity} beating again") { @direct.call("HGET", launcher.identity, "beat").to_f > restarted }
    end
    wait_for(timeout: OUTAGE + 8, message: "the long job to finish") { Deckhand::TestJobs.runs.include?([sleeper, :finish]) }
    wait_for(message: "its acknowledgement") { @direct.call("KEYS", "deckhand:inflight:#{slow.identity}:*").empty? }
    assert_equal 1, started(sleeper), "a live process's job was recovered and ran twice"
  end
end
