# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/sidekiq_launcher_test.rb starts it):
# Sidekiq::Launcher on a Deckhand server. Its heartbeat writes the record
# Sidekiq's writes (busy counting Sidekiq::Processor::WORK_STATE, a 60 s
# TTL, the processed and failed counts of Sidekiq::Processor), fires
# :heartbeat once and :beat each time, and names the process from
# PROCTITLES, a plugin's procs included, unless embedded.
require "minitest/autorun"
require "json"
require "sidekiq"
require "sidekiq/cli"
require "sidekiq/launcher"

class SidekiqLauncherInsideTest < Minitest::Test
  def setup
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
    Deckhand.config = Deckhand::Config.new(redis: {url: ENV.fetch("REDIS_URL")})
    @config = Sidekiq.default_configuration
    @config.logger = Logger.new(File::NULL)
    @config.default_capsule.concurrency = 4
    @config[:tag] = "shop"
    @title = $0.dup
  end

  def teardown
    Sidekiq::Processor::WORK_STATE.clear
    Sidekiq::Processor::PROCESSED.reset
    Sidekiq::Processor::FAILURE.reset
    $0 = @title
  end

  def record(id, *fields) = Sidekiq.redis { |conn| conn.hmget(id, *fields) }

  def test_a_beat_writes_sidekiq_s_record_and_title
    launcher = Sidekiq::Launcher.new(@config)
    Sidekiq::Processor::WORK_STATE.set("t1", {queue: "default", payload: JSON.generate("class" => "X", "jid" => "j1"), run_at: 1})
    launcher.beat
    assert_equal "sidekiq #{Sidekiq::VERSION} shop [1 of 4 busy]", $0
    busy, beat = record(launcher.identity, "busy", "beat")
    assert_equal "1", busy
    assert_in_delta Time.now.to_f, beat.to_f, 5
    assert_in_delta 60_000, Sidekiq.redis { |conn| conn.pttl(launcher.identity) }, 1_000
    work = Sidekiq::WorkSet.new.to_a
    assert_equal [["default", "j1"]], work.map { |_process, _tid, job| [job.queue, job.job.jid] }
    assert_equal %w[shop], Sidekiq::ProcessSet.new.map { |process| process["tag"] }
  end

  def test_a_plugin_s_proc_shows_in_the_title_and_quiet_says_stopping
    Sidekiq::Launcher::PROCTITLES << proc { |launcher, data| "#{data["identity"] == launcher.identity} xyz" }
    launcher = Sidekiq::Launcher.new(@config)
    launcher.quiet
    launcher.beat
    assert_equal "sidekiq #{Sidekiq::VERSION} shop [0 of 4 busy] stopping true xyz", $0
    assert_equal ["true"], record(launcher.identity, "quiet")
  ensure
    Sidekiq::Launcher::PROCTITLES.pop
  end

  def test_heartbeat_fires_once_and_beat_each_time
    seen = []
    @config.on(:heartbeat) { seen << :heartbeat }
    @config.on(:beat) { seen << :beat }
    launcher = Sidekiq::Launcher.new(@config)
    launcher.heartbeat
    launcher.heartbeat
    assert_equal %i[heartbeat beat beat], seen
  end

  def test_sidekiq_processor_counts_reach_the_stats_with_the_beat
    Sidekiq::Processor::PROCESSED.incr(3)
    Sidekiq::Processor::FAILURE.incr
    Sidekiq::Launcher.new(@config).beat
    stats = Sidekiq::Stats.new
    assert_equal [3, 1], [stats.processed, stats.failed]
    assert_equal 0, Sidekiq::Processor::PROCESSED.reset
  end

  def test_an_embedded_launcher_leaves_the_title_alone
    launcher = Sidekiq::Launcher.new(@config, embedded: true)
    launcher.beat
    assert_equal @title, $0
    assert_equal true, JSON.parse(record(launcher.identity, "info").first)["embedded"]
  end

  def test_it_runs_a_deckhand_server_and_stops_it
    started = []
    @config.on(:startup) { started << :startup }
    launcher = Sidekiq::Launcher.new(@config)
    launcher.run(async_beat: false)
    assert_equal [:startup], started
    assert Deckhand.config.booted?
    assert_equal 1, Sidekiq.redis { |conn| conn.sismember("processes", launcher.identity) }
    launcher.stop
    assert launcher.stopping?
    assert_equal 0, Sidekiq.redis { |conn| conn.sismember("processes", launcher.identity) }
  end

  def test_the_title_of_a_server_the_deckhand_command_built
    server = Deckhand::Server::Launcher.new(Deckhand.config)
    assert_equal "sidekiq #{Sidekiq::VERSION} shop [0 of 4 busy]", Deckhand::Lifecycle.title.call(server)
    assert_same Sidekiq::Launcher.of(server), Sidekiq::Launcher.of(server)
    assert_same Sidekiq.default_configuration, Sidekiq::Launcher.of(server).config
  end

  def test_memory_grabber_reads_this_process
    assert_operator Sidekiq::Launcher::MEMORY_GRABBER.call(Process.pid), :>, 0
    assert_equal 10, Sidekiq::Launcher::BEAT_PAUSE
  end

  def test_memory_grabber_reads_the_process_it_is_given
    launcher = Sidekiq::Launcher.new(@config)
    assert_operator launcher.send(:memory_usage, Process.ppid), :>, 0
    gone = Process.spawn(RbConfig.ruby, "-e", "exit")
    Process.wait(gone)
    if File.directory?("/proc/self")
      assert_raises(Errno::ENOENT) { Sidekiq::Launcher::MEMORY_GRABBER.call(gone) }
    else
      assert_equal 0, Sidekiq::Launcher::MEMORY_GRABBER.call(gone)
    end
  end

  def test_a_plugin_s_work_state_entry_of_any_shape_is_counted_and_beats
    launcher = Sidekiq::Launcher.new(@config)
    Sidekiq::Processor::WORK_STATE.set("t9", {"b" => 1})
    launcher.beat
    assert_equal ["1"], record(launcher.identity, "busy")
    work = Sidekiq.redis { |conn| conn.hget("#{launcher.identity}:work", "t9") }
    assert_equal({"b" => 1}, JSON.parse(work)["payload"])
  end
end
