# frozen_string_literal: true

require "test_helper"
require "stringio"
require "deckhand/batch"
require_relative "../../support/replica_pair"

# push_replicas for the pushes a Lua script writes (Script#run_durably):
# unique jobs, a batch's jobs and periodic ticks wait for the replica like
# a plain push, on the script's connection, or raise NotReplicated naming
# the jobs they pushed. push_replicas 2 against a primary with one replica
# is a replica that never answers.
class ScriptDurabilityTest < Minitest::Test
  include Deckhand::ReplicaPair

  SHORT = {push_replicas: 2, push_replicas_timeout: 0.2}.freeze

  class UniqueDurableJob
    include Deckhand::Job

    deckhand_options unique_for: 600

    def perform(*) = nil
  end

  class DurableJob
    include Deckhand::Job

    def perform(*) = nil
  end

  # Pushes go straight to Redis here, even where an earlier test left
  # Deckhand::Testing's pusher in place; the pusher tests set their own.
  def setup
    super
    @pusher = Deckhand::Client.pusher
    Deckhand::Client.pusher = nil
  end

  def teardown
    Deckhand::Client.pusher = @pusher
    (@loops || []).each { |loop| loop.stop.join(5) }
    super
  end

  # A pusher standing between the client and Redis (push after commit, the
  # testing modes) that passes every push on: unique jobs then take their
  # locks in Client.write.
  PASS_ON = ->(queued, scheduled, config) { Deckhand::Client.write(queued, scheduled, config) }

  def use(**settings)
    Deckhand.config = new_config(redis: {url: primary_url}, **settings)
    Deckhand::Batch.install(Deckhand.config)
    Deckhand.config
  end

  def test_a_unique_push_returns_once_the_replica_has_it
    use(push_replicas: 1)
    script_cached
    jid = UniqueDurableJob.perform_async(1)
    assert_equal [jid], jids_on(replica, "queue:default")
    assert_equal 1, wait_calls
  end

  def test_without_push_replicas_a_unique_push_does_not_wait
    use
    refute_nil UniqueDurableJob.perform_async(1)
    assert_equal 0, wait_calls
  end

  def test_a_unique_push_short_of_replicas_raises_naming_the_job_it_pushed
    use(**SHORT)
    error = assert_raises(Deckhand::NotReplicated) { UniqueDurableJob.perform_async(1) }
    assert_equal 2, error.wanted
    assert_equal 1, error.jids.size
    assert_equal error.jids, jids_on(primary, "queue:default"), "the job is in the primary"
    assert_equal error.jids.first, primary.call("GET", JSON.parse(primary.call("LINDEX", "queue:default", 0))["unique_key"])
    # A duplicate pushes nothing, so nothing of its own is short of replicas.
    assert_nil UniqueDurableJob.perform_async(1)
    assert_equal 1, primary.call("LLEN", "queue:default")
  end

  def test_a_unique_push_through_a_pusher_waits_once
    use(push_replicas: 1)
    script_cached
    Deckhand::Client.pusher = PASS_ON
    jid = UniqueDurableJob.perform_async(1)
    assert_equal [jid], jids_on(replica, "queue:default")
    assert_equal 1, wait_calls, "the unique push's WAIT, and no empty push after it"
  end

  def test_a_unique_push_through_a_pusher_short_of_replicas_names_its_job
    use(**SHORT)
    Deckhand::Client.pusher = PASS_ON
    error = assert_raises(Deckhand::NotReplicated) { UniqueDurableJob.perform_async(1) }
    assert_equal error.jids, jids_on(primary, "queue:default")
    assert_equal 1, error.jids.size
  end

  # Another test may have flushed the script cache: a first push to load the
  # scripts, then an empty primary with fresh command counts.
  def script_cached
    UniqueDurableJob.perform_async(0)
    primary.call("FLUSHALL")
    primary.call("CONFIG", "RESETSTAT")
  end

  # Redis lost the script (a restart, SCRIPT FLUSH): its source is sent
  # again, and the WAIT follows it.
  def test_a_unique_push_after_the_script_cache_was_flushed_still_waits
    use(push_replicas: 1)
    primary.call("SCRIPT", "FLUSH")
    jid = UniqueDurableJob.perform_async(1)
    assert_equal [jid], jids_on(replica, "queue:default")
    assert_equal 2, wait_calls, "one WAIT behind the refused EVALSHA, one behind the EVAL"
  end

  def test_a_batchs_jobs_return_once_the_replica_has_them
    use(push_replicas: 1)
    jids = Deckhand::Batch.new.jobs { 3.times { |i| DurableJob.perform_async(i) } }
    assert_equal jids.sort, jids_on(replica, "queue:default").sort
    assert_operator wait_calls, :>=, 1
  end

  def test_a_batch_short_of_replicas_raises_and_its_jobs_stay_queued_and_counted
    use(**SHORT)
    batch = Deckhand::Batch.new
    jids = nil
    error = assert_raises(Deckhand::NotReplicated) { batch.jobs { jids = 3.times.map { |i| DurableJob.perform_async(i) } } }
    assert_equal jids.sort, error.jids.sort
    assert_equal jids.sort, jids_on(primary, "queue:default").sort
    status = Deckhand::Batch::Status.new(batch.bid)
    assert_equal [3, 3], [status.total, status.pending]
    assert_equal "0", primary.call("HGET", Deckhand::Store::Layout::PlainBatches.batch(batch.bid), "hold"), "the batch is let go: it can complete"
  end

  def test_a_periodic_tick_short_of_replicas_raises_and_is_not_pushed_again
    store = use(**SHORT).store
    enqueue = Deckhand::Store::Scripts::PeriodicEnqueue.new(store)
    _, token = Deckhand::Store::Scripts::PeriodicLease.new(store).acquire("a", ttl_ms: 5_000)
    tick = ->(at) { enqueue.call(token: token, name: "e", tick: at, next_tick: at + 2, queue: "ticks", jid: "j#{at}", payload: JSON.generate({"class" => "X", "args" => [], "jid" => "j#{at}"}), now: 100) }
    assert_equal :done, tick.call(50) # a new entry records its start
    error = assert_raises(Deckhand::NotReplicated) { tick.call(102) }
    assert_equal ["j102"], error.jids
    assert_equal :done, tick.call(102)
    assert_equal ["j102"], jids_on(primary, "queue:ticks")
  end

  def test_the_periodic_loop_warns_of_a_tick_short_of_replicas_and_goes_on
    log = StringIO.new
    config = use(**SHORT)
    config.logger = ::Logger.new(log)
    config.periodic { |periodic| periodic.register("* * * * * *", "RecordJob", queue: "ticks", name: "every-second") }
    loop = Deckhand::Server::Chores::PeriodicLoop.new(config: config, store: config.store, identity: "one", lease: 2)
    (@loops ||= []) << loop.start
    wait_for(message: "two ticks enqueued") { primary.call("LLEN", "queue:ticks") >= 2 }
    assert_match(/WARN .*periodic: enqueued \S+ but not yet on enough replicas; it will run and is not pushed again: the push of 1 job/, log.string)
    ticks = primary.call("LRANGE", "queue:ticks", 0, -1).map { |raw| JSON.parse(raw)["periodic_at"] }
    assert_equal ticks.uniq, ticks, "a tick pushed twice"
    assert loop.leader?, "the loop took NotReplicated for an outage"
    refute_match(/ERROR/, log.string)
  end
end
