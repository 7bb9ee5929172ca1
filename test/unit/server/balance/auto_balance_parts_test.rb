# frozen_string_literal: true

require "test_helper"
require "deckhand/cli/config_file" # not deckhand/cli: loading the command makes this a server process
require "stringio"

# The parts of auto-balance that need no server (docs/auto-balance.md): the
# setting, the classifier's verdicts, the backlog split, the capped buffer,
# and fetch.lua's hard share against a real Redis.
class AutoBalancePartsTest < Minitest::Test
  Balance = Deckhand::Server::Balance

  def test_the_setting_is_off_by_default_validated_and_frozen_at_boot
    refute Deckhand::Config.new.auto_balance
    assert Deckhand::Config.new(auto_balance: true).auto_balance
    error = assert_raises(Deckhand::ConfigError) { Deckhand::Config.new(auto_balance: "yes") }
    assert_equal 'auto_balance must be true or false, got "yes"', error.message
    assert_raises(Deckhand::ConfigError) { Deckhand::Config.new(auto_balance: nil) }
    config = new_config(auto_balance: true).freeze!
    error = assert_raises(Deckhand::ConfigError) { config.auto_balance = false }
    assert_match(/cannot change auto_balance/, error.message)
    assert Deckhand::CLI::ConfigFile.known?("auto_balance")
  end

  def test_a_class_that_burns_cpu_for_its_time_is_cpu_bound_one_that_waits_is_not
    classifier = Balance::Classifier.new(cores: 1)
    # Contended: the CPU-bound class got 1/20 of its wall time in CPU, the
    # waiting one far less; no-op jobs burn CPU too, but too little to matter.
    changes = classifier.observe({%w[cpu Sieve] => [40, 400.0, 20.0], %w[io Fetch] => [40, 2000.0, 2.0],
                                  %w[noop Noop] => [400, 4.0, 4.0]}, 1.0)
    assert_equal [["Sieve", true, 0.05]], changes
    assert classifier.cpu_bound?("Sieve")
    refute classifier.cpu_bound?("Fetch")
    refute classifier.cpu_bound?("Noop")
    assert_equal({"cpu" => 1.0, "io" => 0.0, "noop" => 0.0}, classifier.queue_shares)
  end

  def test_a_class_that_waits_once_capped_is_refuted_and_stays_uncapped
    classifier = Balance::Classifier.new(cores: 1)
    classifier.observe({%w[a Mostly] => [20, 1100.0, 100.0], %w[b Waits] => [20, 1000.0, 10.0]}, 1.0)
    assert classifier.cpu_bound?("Mostly"), "the top class, relatively"
    changes = classifier.observe({%w[a Mostly] => [200, 11_000.0, 1000.0]}, 20.0) # capped: still 9 % CPU
    assert_equal [["Mostly", false, 0.091]], changes
    classifier.observe({%w[a Mostly] => [20, 1100.0, 100.0], %w[b Waits] => [20, 1000.0, 10.0]}, 1.0)
    refute classifier.cpu_bound?("Mostly"), "refuted: only its own CPU time over wall time brings it back"
  end

  def test_a_capped_class_is_judged_on_its_runs_since_the_cap
    classifier = Balance::Classifier.new(cores: 1)
    # 30 threads on it: a twentieth of its wall time in CPU, before the cap.
    classifier.observe({%w[cpu Sieve] => [100, 6000.0, 300.0], %w[io Fetch] => [50, 2500.0, 2.5]}, 1.0)
    assert classifier.cpu_bound?("Sieve")
    assert_empty classifier.observe({%w[cpu Sieve] => [3, 3.0, 2.7]}, 1.0), "too few runs since the cap to judge"
    assert_empty classifier.observe({%w[cpu Sieve] => [300, 300.0, 270.0]}, 1.0), "confirmed by its own runs"
    assert classifier.cpu_bound?("Sieve")
  end

  def test_backlog_splits_the_limit
    assert_equal [15, 5, 0], Balance::Shares.split(20, [900, 300, 0])
    assert_equal [4, 3, 3], Balance::Shares.split(10, [1, 1, 1])
    assert_equal [7, 7], Balance::Shares.split(7, [0, 0])
    assert_equal 1, Balance::Cores.usable("ruby")
    assert_equal [Etc.nprocessors, 1].max, Balance::Cores.usable("jruby")
  end

  def test_the_buffer_holds_a_capped_queues_jobs_past_its_cap_until_one_settles
    buffer = Balance::CappedBuffer.new(nil, queues: %w[cpu io], logger: Deckhand::TestHelpers::QUIET_LOGGER)
    buffer.update(caps: {"cpu" => 1}, backlog: {"cpu" => 900, "io" => 300}, ahead: {"cpu" => 8})
    cpu = units("cpu", 0, 3)
    io = units("io", 1, 1)
    buffer.push_units(cpu + io)
    assert_equal 2, buffer.size, "one CPU job may start, and the I/O job"
    assert_equal 2, buffer.held, "the fetch asks for as many more: they take no thread"
    first = buffer.pop
    assert_same cpu[0], first
    assert_same io[0], buffer.pop, "the held CPU jobs are passed over"
    assert buffer.empty?
    assert_equal({"cpu" => [1, 1, 3], "io" => [nil, 1, 1]}, buffer.state)
    assert_equal [[0, 41, -6], [1, 42, 5]], buffer.plan([[0, 41, 20], [1, 42, 20]], 20), "cap + ahead - outstanding"
    assert_equal [0], buffer.fetched_only, "a capped queue with a backlog is left to fetches"
    buffer.update(caps: {"cpu" => 1}, backlog: {"cpu" => 0, "io" => 300}, ahead: {"cpu" => 8})
    assert_empty buffer.fetched_only, "idle: a waiter may watch it"
    more = units("cpu", 0, 6)
    buffer.push_units(more)
    assert_equal [0], buffer.fetched_only, "full: not even then"
    buffer.update(caps: {"cpu" => 1}, backlog: {"cpu" => 900, "io" => 300}, ahead: {"cpu" => 8})
    assert_equal [[1, 43, 5]], buffer.plan([[0, 44, 20], [1, 43, 20]], 20), "no room: not asked (the leftover still reaches io)"
    waiter = Thread.new { buffer.pop }
    wait_for(message: "a processor waiting") { buffer.waiting == 1 }
    buffer.settled(first)
    running = buffer.pop
    assert_same cpu[1], running, "the processor that settled a capped job starts the next itself"
    assert_equal 1, buffer.waiting, "no other thread is woken for it"
    refute buffer.capped_freed?, "7 jobs wait: more than half of the 8 it may hold ahead, no fetch yet"
    buffer.settled(first)
    assert_equal({"cpu" => [1, 1, 8], "io" => [nil, 1, 1]}, buffer.state, "settling twice counts once")
    3.times do
      buffer.settled(running)
      running = buffer.pop
    end
    refute buffer.capped_freed?
    buffer.settled(running)
    assert buffer.capped_freed?, "4 left of the 8 it may hold ahead: a fetch refills it"
    buffer.update(caps: {}, backlog: nil)
    assert_same more[2], waiter.value, "uncapped: the waiting thread starts any job"
  end

  def test_a_negative_share_is_a_hard_limit_in_the_fetch
    redis.call("LPUSH", "queue:cpu", *Array.new(10) { |i| "c#{i}" })
    redis.call("LPUSH", "queue:io", "i0")
    fetch = Deckhand::Store::Scripts::Fetch.new(Deckhand.config.store, identity: "test", queues: %w[cpu io])
    takes = fetch.call(limit: 10, sources: [[0, 1, -3], [1, 2, 7]], acks: [])
    assert_equal({0 => 3, 1 => 1}, takes.to_h { |take| [take.source, take.payloads.size] })
    takes = fetch.call(limit: 10, sources: [[0, 3, 10], [1, 4, 7]], acks: [])
    assert_equal({0 => 7}, takes.to_h { |take| [take.source, take.payloads.size] }, "a positive share takes the leftover")
  end

  def test_the_balancer_logs_its_decisions_at_most_every_ten_seconds_and_reports_them
    out = StringIO.new
    config = new_config(queues: %w[cpu io], auto_balance: true)
    config.logger = Logger.new(out)
    buffer = Balance::CappedBuffer.new(nil, queues: %w[cpu io], logger: config.logger)
    times = Balance::ClassTimes.new
    balancer = Deckhand::Server::Balance::Balancer.new(config: config, store: config.store, times: times, buffers: {"default" => buffer}, cores: 1)
    redis.call("LPUSH", "queue:cpu", "a", "b")
    20.times { times.record("cpu", "Sieve", 20.0, 1.0) }
    20.times { times.record("io", "Fetch", 50.0, 0.01) }
    balancer.tick
    assert_equal 1, out.string.lines.grep(/auto-balance: Sieve is CPU-bound \(CPU 5% of wall time\); queue cpu capped at 1 running job \(1 usable core\)/).size
    report = balancer.report
    assert_equal({"cpu" => 1}, report["caps"])
    assert_equal({"cpu" => 2, "io" => 0}, report["backlog"])
    assert_equal ["Sieve"], report["cpu_bound"]
    assert_equal [1, 0, 0], buffer.state["cpu"]
    20.times { times.record("cpu", "Sieve", 20.0, 0.1) } # capped, it waits after all
    balancer.tick
    assert_equal 1, out.string.lines.grep(/auto-balance/).size, "the next line waits ten seconds"
    assert_empty balancer.report["caps"]
  end

  private

  def units(queue, index, count)
    lot = Deckhand::Server::Fetch::Lot.new(queue, index, 40 + index, count)
    Array.new(count) { |i| Deckhand::Server::Fetch::UnitOfWork.new(lot, i, "{}", false) }
  end
end
