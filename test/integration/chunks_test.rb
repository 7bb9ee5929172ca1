# frozen_string_literal: true

require "test_helper"
require "deckhand/batch"

# Jobs of a class that declares chunk: run together through perform_chunk,
# each member still a job of its own: settled alone (a success acknowledged,
# a failure retried with its own jid and count), never run twice, handed back
# whole at a stop, and a queue that mixes them with other jobs runs both.
class ChunksTest < Minitest::Test
  class ChunkJob
    include Deckhand::Job

    deckhand_options chunk: {size: 20, wait: 0.2}, retry: 3
    CALLS = Queue.new # [sizes of each call]
    FAIL = [] # members whose first arg is listed fail
    RAISE = [false]
    GATE = Queue.new
    HOLD = [false]

    def perform_chunk(chunk)
      CALLS << chunk.size
      GATE.pop if HOLD[0]
      chunk.each do |(n), job|
        Deckhand::TestJobs.record([job["jid"], n])
        chunk.fail(job, ArgumentError.new("member #{n} failed")) if FAIL.include?(n)
      end
      raise IOError, "the whole chunk failed" if RAISE[0]
    end

    def perform(n) = Deckhand::TestJobs.record([jid, n, :alone])
  end

  class NoChunkMethodJob
    include Deckhand::Job

    deckhand_options chunk: {size: 5}, retry: 1
    def perform(*) = nil
  end

  # Records each member's passage; keeps the member whose arg is 3 out of
  # the chunk by not yielding.
  class MemberTrace
    TRACE = Queue.new

    def call(_instance, payload, _queue)
      n = payload["args"].first
      return if n == 3
      TRACE << [:enter, n]
      yield
      TRACE << [:leave, n]
    rescue => e
      TRACE << [:failed, n, e.class]
      raise
    end
  end

  # Says it only yields for every job but the one whose arg is 3.
  class PassUnlessThree
    BUILT = Queue.new

    def self.deckhand_passes?(payload) = payload["args"].first != 3

    def initialize = BUILT << :built

    def call(_instance, payload, _queue)
      MemberTrace::TRACE << [:enter, payload["args"].first]
      yield
    end
  end

  class UniqueChunkJob
    include Deckhand::Job

    deckhand_options chunk: {size: 10, wait: 0.2}, unique_for: 600, retry: 3
    def perform_chunk(chunk) = chunk.each { |(n), job| chunk.fail(job, ArgumentError.new("no #{n}")) if n.odd? }
  end

  # Ends its thread inside perform_chunk, as a library calling Thread.exit would.
  class ExitingChunkJob
    include Deckhand::Job

    deckhand_options chunk: {size: 10, wait: 0.2}, retry: 3
    def perform_chunk(_chunk) = Thread.exit
  end

  class LongWaitJob
    include Deckhand::Job

    # Far longer than any wait below: a chunk that ran within it did not wait it out.
    WAIT = 60
    deckhand_options chunk: {size: 10, wait: WAIT}
    def perform_chunk(chunk) = Deckhand::TestJobs.record([:chunk, chunk.size])
  end

  # A job whose secret bag cannot be decrypted (a key no longer configured).
  class SecretChunkJob
    include Deckhand::Job

    deckhand_options chunk: {size: 10, wait: 0.2}, encrypt: true, retry: 3
    def perform_chunk(chunk) = chunk.each { |(n, bag), _| Deckhand::TestJobs.record([n, bag["token"]]) }
  end

  def setup
    super
    [ChunkJob::CALLS, ChunkJob::GATE, MemberTrace::TRACE, PassUnlessThree::BUILT].each(&:clear)
    ChunkJob::FAIL.clear
    ChunkJob::RAISE[0] = false
    ChunkJob::HOLD[0] = false
  end

  def calls
    sizes = []
    sizes << ChunkJob::CALLS.pop until ChunkJob::CALLS.empty?
    sizes
  end

  def ran = Deckhand::TestJobs.runs.map { |_, n| n }

  def settle(launcher)
    wait_for(message: "nothing left in flight") { inflight_count(launcher.identity).zero? && inflight_keys(launcher.identity).empty? }
  end

  def test_waiting_jobs_of_a_chunked_class_run_together_and_each_once
    ChunkJob.perform_bulk((1..50).zip)
    with_server(new_config(concurrency: 1)) do |launcher|
      wait_for(message: "every member run") { Deckhand::TestJobs.runs.size == 50 }
      settle(launcher)
    end
    sizes = calls
    assert_equal 50, sizes.sum
    assert_equal 20, sizes.max, "chunks fill to their size: #{sizes.inspect}"
    assert_equal (1..50).to_a, ran.sort, "each member ran once"
    assert_equal 50, Deckhand::TestJobs.runs.map(&:first).uniq.size, "each member keeps its jid"
    assert_empty jobs_in("default")
    assert_equal 50, redis.call("GET", "stat:processed").to_i, "each member counts as a job processed"
    assert_equal 0, redis.call("ZCARD", "retry")
  end

  def test_a_member_named_failed_goes_to_retry_alone_and_the_others_never_run_again
    ChunkJob::FAIL.push(2, 5)
    jids = ChunkJob.perform_bulk((1..6).zip)
    with_server(new_config(concurrency: 1)) do |launcher|
      wait_for(message: "two members in retry") { redis.call("ZCARD", "retry") == 2 }
      settle(launcher)
    end
    retries = zset("retry").map(&:first).sort_by { |job| job["args"] }
    assert_equal [[2], [5]], retries.map { |job| job["args"] }
    assert_equal [jids[1], jids[4]], retries.map { |job| job["jid"] }, "each keeps its own jid"
    assert_equal [0, 0], retries.map { |job| job["retry_count"] }
    assert_equal ["member 2 failed", "member 5 failed"], retries.map { |job| job["error_message"] }
    assert_equal (1..6).to_a, ran.sort, "each ran once: the four that succeeded are done"
    assert_equal 2, redis.call("GET", "stat:failed").to_i
  end

  def test_a_chunk_that_raises_fails_every_member_each_with_its_own_retry
    ChunkJob::RAISE[0] = true
    ChunkJob.perform_bulk((1..4).zip)
    with_server(new_config(concurrency: 1)) do |launcher|
      wait_for(message: "every member in retry") { redis.call("ZCARD", "retry") == 4 }
      settle(launcher)
    end
    retries = zset("retry").map(&:first)
    assert_equal [[1], [2], [3], [4]], retries.map { |job| job["args"] }.sort
    assert_equal ["IOError"], retries.map { |job| job["error_class"] }.uniq
    assert_equal 4, retries.map { |job| job["jid"] }.uniq.size
  end

  def test_a_queue_that_mixes_chunked_and_single_jobs_runs_both
    jids = (1..30).map { |n| n.even? ? ChunkJob.perform_async(n) : RecordJob.perform_async(n) }
    with_server(new_config(concurrency: 2)) do |launcher|
      wait_for(message: "every job run") { Deckhand::TestJobs.runs.size == 30 }
      settle(launcher)
    end
    assert_equal jids.sort, Deckhand::TestJobs.runs.map(&:first).sort, "each job ran once"
    assert_equal 15, calls.sum, "the chunked ones in chunks"
    assert_empty jobs_in("default")
  end

  def test_server_middleware_runs_for_each_member_around_the_chunk
    ChunkJob::FAIL.push(2)
    config = new_config(concurrency: 1)
    config.server_middleware.add(MemberTrace)
    ChunkJob.perform_bulk((1..4).zip)
    with_server(config) do |launcher|
      wait_for(message: "the failed member in retry") { redis.call("ZCARD", "retry") == 1 }
      settle(launcher)
    end
    trace = []
    trace << MemberTrace::TRACE.pop until MemberTrace::TRACE.empty?
    entered = trace.take_while { |step| step[0] == :enter }
    assert_equal [[:enter, 1], [:enter, 2], [:enter, 4]], entered, "every member's chain entered before the chunk ran"
    assert_equal [[:leave, 1], [:failed, 2, ArgumentError], [:leave, 4]], trace.drop(3), "each left with its own outcome"
    assert_equal [1, 2, 4], ran.sort, "a member whose middleware did not yield stays out of the chunk"
    assert_equal [[2]], zset("retry").map { |job, _| job["args"] }
    assert_equal 4, redis.call("GET", "stat:processed").to_i
  end

  # A member whose middleware all say they would only yield runs without
  # its chain: nothing built for it, and it is still in the chunk.
  def test_a_member_the_middleware_passes_runs_in_the_chunk_without_its_chain
    config = new_config(concurrency: 1)
    config.server_middleware.add(PassUnlessThree)
    ChunkJob.perform_bulk((1..4).zip)
    with_server(config) do |launcher|
      wait_for(message: "every member run") { Deckhand::TestJobs.runs.size == 4 }
      settle(launcher)
    end
    assert_equal [4], calls
    assert_equal [1, 2, 3, 4], ran.sort
    assert_equal 1, PassUnlessThree::BUILT.size, "built for member 3 alone"
    assert_equal [:enter, 3], MemberTrace::TRACE.pop
    assert_equal 4, redis.call("GET", "stat:processed").to_i
  end

  # A partitioned queue's partitions are sources of their own: a chunk
  # gathers members fetched from several, each settled in its own lot.
  def test_a_partitioned_queues_members_run_in_chunks_once
    config = new_config(concurrency: 1, partitions: {"default" => 3})
    lists = Deckhand::Store::Layout::PartitionNames.list("default", 3)
    ChunkJob::FAIL.push(5)
    Deckhand::Client.new(config: config).push_bulk("class" => ChunkJob.name, "args" => (1..30).zip)
    assert_equal [10, 10, 10], lists.map { |list| redis.call("LLEN", "queue:#{list}") }
    with_server(config) do |launcher|
      wait_for(message: "every member run and the failure in retry") { Deckhand::TestJobs.runs.size == 30 && redis.call("ZCARD", "retry") == 1 }
      wait_for(message: "nothing left in flight") { inflight_count(launcher.identity, lists).zero? }
    end
    sizes = calls
    assert_equal 30, sizes.sum
    assert_operator sizes.max, :>, 10, "a chunk took members of more than one partition: #{sizes.inspect}"
    assert_equal (1..30).to_a, ran.sort, "each member once"
    assert_equal [0, 0, 0], lists.map { |list| redis.call("LLEN", "queue:#{list}") }
    assert_equal [[5], "default"], zset("retry").map { |job, _| [job["args"], job["queue"]] }.first
  end

  def test_a_chunk_cut_by_the_shutdown_goes_back_whole_to_its_queue
    ChunkJob::HOLD[0] = true
    jids = ChunkJob.perform_bulk((1..10).zip)
    with_server(new_config(concurrency: 1, timeout: 0.5)) do |launcher|
      wait_for(message: "the chunk running") { ChunkJob::GATE.num_waiting == 1 }
      assert_equal 10, launcher.capsules.first.fetcher.outstanding
    end
    assert_equal [10], calls
    assert_equal jids.sort, jobs_in("default").map { |job| job["jid"] }.sort, "every member back in its queue"
    assert_empty redis.call("KEYS", "deckhand:lot:*")
    assert_equal 0, redis.call("ZCARD", "retry")
  end

  def test_a_chunked_class_without_perform_chunk_fails_its_members_with_the_fix
    NoChunkMethodJob.perform_async(1)
    with_server(new_config(concurrency: 1)) do |launcher|
      wait_for(message: "the member in retry") { redis.call("ZCARD", "retry") == 1 }
      settle(launcher)
    end
    job = zset("retry").first.first
    assert_equal "Deckhand::ConfigError", job["error_class"]
    assert_includes job["error_message"], "defines no perform_chunk(chunk); define it, or remove the chunk option"
  end

  # A batch counts each member: its server middleware runs per member.
  def test_a_batch_counts_each_members_own_outcome
    ChunkJob::FAIL.push(1, 3)
    config = new_config(concurrency: 1)
    Deckhand::Batch.install(config)
    Deckhand::Batch.install(Deckhand.config)
    batch = Deckhand::Batch.new
    jids = batch.jobs { (1..4).each { |n| ChunkJob.perform_async(n) } }
    with_server(config) do |launcher|
      wait_for(message: "the failed members in retry") { redis.call("ZCARD", "retry") == 2 }
      settle(launcher)
    end
    assert_equal [4], calls, "the four ran in one call"
    status = Deckhand::Batch::Status.new(batch.bid)
    assert_equal [4, 2, 2], [status.total, status.pending, status.failures]
    assert_equal [jids[0], jids[2]].sort, status.failed_jids.sort
  end

  # Each member's unique lock goes with its own success, and a failed
  # member keeps its lock through its retries.
  def test_each_members_unique_lock_goes_with_its_own_success
    (1..4).each { |n| UniqueChunkJob.perform_async(n) }
    assert_nil UniqueChunkJob.perform_async(2), "the lock is held while the job waits"
    with_server(new_config(concurrency: 1)) do |launcher|
      wait_for(message: "the odd members in retry") { redis.call("ZCARD", "retry") == 2 }
      settle(launcher)
    end
    assert UniqueChunkJob.perform_async(2), "the member that succeeded let its lock go"
    assert_nil UniqueChunkJob.perform_async(1), "the member in retry holds its lock"
  end

  # A thread gathering a chunk for up to `wait` notices a quiet (TSTP): no
  # more jobs come, so the chunk runs at once with what it has.
  def test_a_quiet_cuts_a_long_wait_short_and_the_chunk_runs_with_what_it_has
    LongWaitJob.perform_async
    with_server(new_config(concurrency: 1, timeout: 10)) do |launcher|
      wait_for(message: "the job fetched") { launcher.capsules.first.fetcher.outstanding == 1 }
      sleep 0.2 # gathering
      launcher.quiet
      wait_for(timeout: 20, message: "the chunk run before its #{LongWaitJob::WAIT} s wait") { Deckhand::TestJobs.runs == [[:chunk, 1]] }
    end
  end

  # A backlog fills one chunk after another: a thread that takes a job of
  # a class whose chunk gathers joins it to that chunk instead of starting
  # one of its own, so no chunk waits out its `wait` short of its size.
  def test_threads_join_their_jobs_to_the_gathering_chunk_so_a_backlog_runs_in_full_chunks
    LongWaitJob.perform_bulk((1..20).zip)
    with_server(new_config(concurrency: 5, timeout: 10)) do |launcher|
      wait_for(timeout: 20, message: "two full chunks, long before their #{LongWaitJob::WAIT} s wait") do
        Deckhand::TestJobs.runs.sum { |_, size| size } == 20
      end
      settle(launcher)
    end
    assert_equal [[:chunk, 10], [:chunk, 10]], Deckhand::TestJobs.runs
    assert_equal 20, redis.call("GET", "stat:processed").to_i, "each member counts as a job processed"
    assert_empty jobs_in("default")
  end

  # A member whose args cannot be read fails alone; the others run.
  def test_a_member_whose_secret_cannot_be_decrypted_fails_alone
    keys = {1 => "k" * 32, 2 => "j" * 32}
    Deckhand.config.encryption(active_version: 1) { |version| keys.fetch(version) }
    SecretChunkJob.perform_async(1, {"token" => "a"})
    Deckhand.config = new_config
    Deckhand.config.encryption(active_version: 2) { |version| keys.fetch(version) }
    SecretChunkJob.perform_async(2, {"token" => "b"})
    config = new_config(concurrency: 1)
    config.encryption(active_version: 2) { |version| keys.fetch(version) if version == 2 } # key 1 retired
    with_server(config) do |launcher|
      wait_for(message: "the unreadable member in retry") { redis.call("ZCARD", "retry") == 1 }
      settle(launcher)
    end
    assert_equal [[2, "b"]], Deckhand::TestJobs.runs
    assert_equal "Deckhand::DecryptionError", zset("retry").first.first["error_class"]
  end

  # The thread that dies inside a chunk is replaced, and every member it
  # held is settled first, each its own failure: none stays in flight.
  def test_a_thread_that_dies_in_a_chunk_leaves_every_member_settled_as_a_failure
    jids = ExitingChunkJob.perform_bulk((1..5).zip)
    with_server(new_config(concurrency: 1)) do |launcher|
      wait_for(message: "every member in retry") { redis.call("ZCARD", "retry") == 5 }
      settle(launcher)
    end
    retries = zset("retry").map(&:first)
    assert_equal jids.sort, retries.map { |job| job["jid"] }.sort
    assert_equal ["Deckhand::ThreadDied"], retries.map { |job| job["error_class"] }.uniq
  end
end
