# frozen_string_literal: true

require "test_helper"

# The process record is written by the heartbeat and read by the data API:
# what one side writes, the other must read back.
class ProcessRecordTest < Minitest::Test
  Record = Deckhand::Store::Records::ProcessRecord
  Running = Struct.new(:queue, :payload, :run_at)
  ChunkRunning = Struct.new(:queue, :payload, :run_at, :chunk_jids)

  def store = Deckhand.config.store

  def write(identity, running: {}, quiet: false, ttl: 40, balance: nil, clock: nil)
    store.pipelined do |pipe|
      Record.write(pipe, store.layout, identity, info: JSON.generate("hostname" => "h", "concurrency" => 5), running: running,
        inflight: 3, rtt_us: 850, quiet: quiet, rss_kb: 1234, ttl: ttl, balance: balance, clock: clock,
        now: Time.at(1_700_000_000.5))
    end
  end

  def test_what_the_heartbeat_writes_the_api_reads_back
    write("h:1:a", running: {"t1" => Running.new("mail", '{"class":"A","jid":"j1"}', 1_700_000_000)}, quiet: true, clock: -0.0213)
    assert_equal ["h:1:a"], Record.identities(store)
    entry = Record.read(store, ["h:1:a"]).first
    assert_equal ["h:1:a", {"hostname" => "h", "concurrency" => 5}, 1, Time.at(1_700_000_000.5), true, 1234, 850, 3, {}, -0.0213], entry.to_a
    work = Record.work(store, ["h:1:a"]).first
    assert_equal [["t1", "mail", '{"class":"A","jid":"j1"}', Time.at(1_700_000_000), nil]], work.map(&:to_a)
    assert_operator redis.call("TTL", "h:1:a:work"), :>, 30
  end

  # A job's start is stamped by its host's clock (per job, no Redis
  # clock read): a host off Redis' clock by more than noise has it moved
  # onto the fleet's as the record is written.
  def test_a_skewed_host_s_running_jobs_are_written_by_the_fleet_s_clock
    write("h:1:a", running: {"t1" => Running.new("q", "{}", 1_700_000_000)}, clock: 400.4)
    assert_equal [Time.at(1_700_000_400)], Record.work(store, ["h:1:a"]).first.map(&:run_at)
    assert_equal 400.4, Record.read(store, ["h:1:a"]).first.clock_offset
  end

  # A job a plugin described without a start (drop-in's WORK_STATE takes
  # any Hash) is written without one, on a skewed host too.
  def test_a_running_job_without_a_start_is_written_without_one
    write("h:1:a", running: {"t1" => Running.new(nil, {"b" => 1}, nil)}, clock: 400.4)
    work = Record.work(store, ["h:1:a"]).first
    assert_equal [["t1", {"b" => 1}, nil]], work.map { |job| [job.thread, job.payload, job.run_at] }
    assert_equal 1, Record.read(store, ["h:1:a"]).first.busy
  end

  # Sidekiq 8.1.2 and later keep the thread count in a field of its own, not
  # in the info (which still says it when an older process wrote it).
  def test_the_concurrency_field_is_written_and_wins_over_the_info
    store.pipelined do |pipe|
      Record.write(pipe, store.layout, "h:1:a", info: JSON.generate("concurrency" => 5), concurrency: 5, running: {}, inflight: 0,
        rtt_us: 1, quiet: false, rss_kb: 1, ttl: 40)
    end
    assert_equal "5", redis.call("HGET", "h:1:a", "concurrency")
    redis.call("HSET", "sk8:2:b", "info", JSON.generate("hostname" => "sk8", "version" => "8.1.7"), "concurrency", "10", "busy", "2")
    redis.call("HSET", "sk7:3:c", "info", JSON.generate("hostname" => "sk7", "version" => "7.3.10", "concurrency" => 7), "busy", "0")
    assert_equal [10, 7], Record.read(store, ["sk8:2:b", "sk7:3:c"]).map { |entry| entry.info["concurrency"] }
  end

  def test_what_auto_balance_decided_reads_back
    write("h:1:a", balance: {"caps" => {"cpu" => 1}})
    assert_equal({"caps" => {"cpu" => 1}}, Record.read(store, ["h:1:a"]).first.balance)
  end

  def test_an_idle_beat_clears_the_work_record
    write("h:1:a", running: {"t1" => Running.new("q", "{}", 1)})
    write("h:1:a")
    assert_equal [[]], Record.work(store, ["h:1:a"])
    assert_equal 0, Record.read(store, ["h:1:a"]).first.busy
  end

  def test_an_expired_record_reads_as_nil_and_can_be_forgotten
    write("h:1:a")
    redis.call("SADD", "processes", "gone:2:b")
    assert_nil Record.read(store, ["gone:2:b", "h:1:a"]).first
    Record.forget(store, ["gone:2:b"])
    assert_equal ["h:1:a"], Record.identities(store)
  end

  def test_a_signal_sent_is_taken_once_in_order
    Record.signal(store, "h:1:a", "TSTP")
    Record.signal(store, "h:1:a", "TERM")
    taken = store.pipelined { |pipe| 3.times { Record.take_signal(pipe, store.layout, "h:1:a") } }
    assert_equal ["TSTP", "TERM", nil], taken
  end

  # A chunk's row names how many members it runs and the first ones' jids,
  # so the record stays small for a chunk of thousands.
  def test_a_running_chunk_is_written_with_its_size_and_first_members
    jids = Array.new(25) { |i| format("%024d", i) }
    write("h:1:a", running: {"t1" => ChunkRunning.new("q", '{"jid":"first"}', 1_700_000_000, jids), "t2" => ChunkRunning.new("q", "{}", 1_700_000_000, nil)})
    work = Record.work(store, ["h:1:a"]).first.sort_by(&:thread)
    assert_equal [{"size" => 25, "jids" => jids.first(20)}, nil], work.map(&:chunk)
  end
end
