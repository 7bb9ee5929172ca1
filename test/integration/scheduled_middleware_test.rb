# frozen_string_literal: true

require "test_helper"

# With client middleware configured, the scheduler runs it on each due
# scheduled job and retry before moving it to its queue, as Sidekiq's
# poller does by pushing it again: a middleware may change the job (the
# queue gets the changed one) or stop it (its entry is removed and the log
# says so). A due job is pushed once, whichever scheduler gets there first.
class ScheduledMiddlewareTest < Minitest::Test
  # Marks every job it sees; counts them.
  class Mark
    SEEN = Queue.new

    def call(_klass, job, _queue, _store)
      SEEN << job["jid"]
      job["marked"] = "due"
      yield
    end
  end

  # Stops the jobs whose first argument is odd.
  class OddStopper
    def call(_klass, job, *) = job["args"].first.odd? ? false : yield
  end

  # Looks, changes nothing.
  class Look
    def call(*) = yield
  end

  class Boom
    def call(*) = raise(IOError, "status store unreachable")
  end

  def setup
    super
    @log = StringIO.new
    Deckhand.config.logger = Logger.new(@log)
    Mark::SEEN.clear
  end

  def scheduler(config = Deckhand.config) = Deckhand::Server::Chores::Scheduler.new(config: config, store: config.store, process_count: -> { 1 })

  def due(set, job)
    raw = JSON.generate({"class" => "RecordJob", "queue" => "default", "jid" => SecureRandom.hex(12), "args" => [1], "retry" => true}.merge(job))
    redis.call("ZADD", set, (Time.now.to_f - 60).to_s, raw)
    raw
  end

  def test_a_middleware_that_changes_a_due_job_changes_what_its_queue_gets
    Deckhand.config.client_middleware.add(Mark)
    a = due("schedule", "args" => [1], "queue" => "mail")
    b = due("retry", "args" => [2], "retry_count" => 1)
    moved, corrupt, = scheduler.enqueue_due(stamp: 42)
    assert_equal [2, 0], [moved, corrupt]
    assert_equal [{"args" => [1], "marked" => "due", "enqueued_at" => 42}], jobs_in("mail").map { |j| j.slice("args", "marked", "enqueued_at") }
    assert_equal [{"args" => [2], "marked" => "due", "retry_count" => 1}], jobs_in("default").map { |j| j.slice("args", "marked", "retry_count") }
    assert_equal 0, redis.call("ZCARD", "schedule") + redis.call("ZCARD", "retry")
    assert_equal [JSON.parse(a)["jid"], JSON.parse(b)["jid"]].sort, Array.new(Mark::SEEN.size) { Mark::SEEN.pop }.sort
    assert_equal %w[default mail], redis.call("SMEMBERS", "queues").sort
  end

  # A job the chain passes unchanged keeps its entry's bytes, as the move
  # without middleware does: arguments round-trip byte for byte.
  def test_a_job_the_chain_does_not_change_keeps_every_byte
    Deckhand.config.client_middleware.add(Look)
    raw = '{"class":"RecordJob","queue":"default","jid":"0123456789abcdef01234567","args":[1.0E2,"\u00e9"]}'
    redis.call("ZADD", "schedule", "1", raw)
    assert_equal 1, scheduler.enqueue_due(stamp: 7).first
    assert_equal [raw.delete_suffix("}") + ',"enqueued_at":7}'], redis.call("LRANGE", "queue:default", 0, -1)
  end

  def test_a_middleware_that_stops_a_due_job_removes_it_and_says_so
    Deckhand.config.client_middleware.add(OddStopper)
    stopped = JSON.parse(due("retry", "args" => [1]))["jid"]
    due("schedule", "args" => [2])
    moved, corrupt, = scheduler.enqueue_due
    assert_equal [1, 0], [moved, corrupt]
    assert_equal [[2]], jobs_in("default").map { |j| j["args"] }
    assert_equal 0, redis.call("ZCARD", "retry")
    assert_equal 0, redis.call("ZCARD", "dead")
    assert_match(/INFO -- : client middleware stopped the due RecordJob #{stopped}; removed from its set/, @log.string)
  end

  def test_a_middleware_that_raises_leaves_the_job_scheduled
    Deckhand.config.client_middleware.add(Boom)
    raw = due("schedule", {})
    assert_equal [0, 0], scheduler.enqueue_due.first(2)
    assert_equal [raw], redis.call("ZRANGE", "schedule", 0, -1)
    assert_empty jobs_in("default")
    assert_match(/ERROR -- : client middleware raised IOError \(status store unreachable\) on the due RecordJob #{JSON.parse(raw)["jid"]}: it stays scheduled/, @log.string)
  end

  def test_an_entry_that_is_not_a_job_goes_to_the_dead_set_unseen_by_the_chain
    Deckhand.config.client_middleware.add(Mark)
    redis.call("ZADD", "schedule", "1", "{not json")
    assert_equal [0, 1], scheduler.enqueue_due.first(2)
    assert_equal ["{not json"], redis.call("ZRANGE", "dead", 0, -1)
    assert_equal 0, Mark::SEEN.size
  end

  # A middleware that takes the job's queue away spoils it: the entry goes
  # to the dead set as it was, not to a queue no fetch reads.
  def test_a_job_the_chain_spoils_goes_to_the_dead_set_as_it_was
    spoil = Class.new { def call(_k, job, *) = job.delete("queue") && yield }
    Deckhand.config.client_middleware.add(spoil)
    raw = due("schedule", {})
    assert_equal [0, 1], scheduler.enqueue_due.first(2)
    assert_equal [raw], redis.call("ZRANGE", "dead", 0, -1)
  end

  def test_a_due_job_with_a_priority_goes_to_its_levels_list
    Deckhand.config.client_middleware.add(Mark)
    due("schedule", "priority" => 5)
    assert_equal 1, scheduler.enqueue_due.first
    assert_equal ["due"], redis.call("LRANGE", Deckhand.config.store.layout.priority("default", 5), 0, -1).map { |raw| JSON.parse(raw)["marked"] }
  end

  # The second scheduler moves the jobs while the first one's chain runs on
  # them: the first finds them gone and pushes nothing.
  def test_a_job_another_scheduler_moved_meanwhile_is_skipped
    other = new_config
    other.client_middleware.add(Look)
    other_scheduler = scheduler(other)
    client = redis
    interloper = Class.new do
      define_method(:call) do |*, &block|
        other_scheduler.enqueue_due if client.call("ZCARD", "schedule").positive?
        block.call
      end
    end
    Deckhand.config.client_middleware.add(interloper)
    jids = Array.new(3) { |i| JSON.parse(due("schedule", "args" => [i]))["jid"] }
    r = scheduler.enqueue_due.first(2)
    assert_equal [0, 0], r
    assert_equal jids.sort, jobs_in("default").map { |j| j["jid"] }.sort
  end

  # Two schedulers polling at once, each with its chain: every due job is
  # pushed exactly once.
  def test_two_schedulers_at_once_push_each_due_job_once
    slow = Class.new do
      def call(*)
        sleep 0.001
        yield
      end
    end
    configs = [Deckhand.config, new_config].each { |config| config.client_middleware.add(slow) }
    jids = Array.new(150) { |i| JSON.parse(due(i.even? ? "schedule" : "retry", "args" => [i]))["jid"] }
    schedulers = configs.map { |config| scheduler(config) }
    moved = schedulers.map { |s| Thread.new { Array.new(2) { s.enqueue_due.first }.sum } }.map(&:value)
    assert_equal 150, moved.sum
    assert_equal jids.sort, jobs_in("default").map { |j| j["jid"] }.sort
  end

  def test_without_client_middleware_the_scheduler_moves_due_jobs_in_one_script
    redis.call("SCRIPT", "FLUSH") # the harness' own Redis: no script loaded yet
    raw = due("schedule", {})
    scheduler.enqueue_due(stamp: 3)
    assert_equal [raw.delete_suffix("}") + ',"enqueued_at":3}'], redis.call("LRANGE", "queue:default", 0, -1)
    refute_includes redis.call("SCRIPT", "EXISTS", Deckhand::Store::Scripts::ScheduleGiven.sha), 1
  end
end
