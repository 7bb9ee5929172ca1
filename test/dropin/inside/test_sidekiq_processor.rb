# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/sidekiq_processor_test.rb starts it):
# Sidekiq::Processor#process runs a job handed to it as Sidekiq's processor
# does, on Deckhand's parts (the job logger, the retry step, the stats, the
# reloader, the capsule's middleware, an interrupted iterable job put back
# in its queue); BasicFetch gives the queue order and puts units back;
# Scheduled::Poller#start polls on Deckhand's scheduler until terminated.
require "minitest/autorun"
require "json"
require "sidekiq"
require "sidekiq/processor"
require "sidekiq/fetch"
require "sidekiq/scheduled"
require "sidekiq/api"

module ProcessorApp
  RAN = []

  class Greet
    include Sidekiq::Job

    def perform(name) = RAN << [name, jid, _context.class]
  end

  class Boom
    include Sidekiq::Job

    sidekiq_options retry: 2

    def perform = raise(ArgumentError, "boom")
  end

  class Steps
    include Sidekiq::IterableJob

    def build_enumerator(cursor:) = array_enumerator([1, 2, 3, 4], cursor: cursor)

    def each_iteration(step) = RAN << step

    # Stops after two steps of a run, then resumes.
    def interrupted? = RAN.size == 2
  end

  class Tag
    def call(_job, payload, _queue)
      payload["tagged"] = true
      RAN << :middleware
      yield
    end
  end
end

class SidekiqProcessorInsideTest < Minitest::Test
  def setup
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
    Deckhand.config = Deckhand::Config.new(redis: {url: ENV.fetch("REDIS_URL")})
    @config = Sidekiq.default_configuration
    @config.logger = Logger.new(File::NULL)
    @errors = []
    @config.error_handlers << ->(error, context, _config = nil) { @errors << [error.class, context[:context], context[:job]&.fetch("class")] }
    ProcessorApp::RAN.clear
    Sidekiq::Processor::PROCESSED.reset
    Sidekiq::Processor::FAILURE.reset
  end

  def unit(payload, queue = "queue:default") = Sidekiq::BasicFetch::UnitOfWork.new(queue, payload.is_a?(String) ? payload : JSON.generate(payload))

  def processor = Sidekiq::Processor.new(@config.default_capsule)

  def test_a_job_runs_with_the_middleware_and_is_counted
    @config.server_middleware { |chain| chain.add(ProcessorApp::Tag) }
    processor.process(unit("class" => "ProcessorApp::Greet", "args" => ["ann"], "jid" => "j1"))
    assert_equal [:middleware, ["ann", "j1", Sidekiq::Processor]], ProcessorApp::RAN
    assert_equal [1, 0], [Sidekiq::Processor::PROCESSED.reset, Sidekiq::Processor::FAILURE.reset]
    assert_empty Sidekiq::Processor::WORK_STATE.own
  end

  def test_a_failure_goes_to_the_retry_set_the_error_handlers_and_is_raised_again
    acknowledged = []
    work = unit("class" => "ProcessorApp::Boom", "args" => [], "jid" => "j2")
    work.define_singleton_method(:acknowledge) { acknowledged << true }
    assert_raises(ArgumentError) { processor.process(work) }
    assert_equal [true], acknowledged
    retry_entry = Sidekiq::RetrySet.new.first
    assert_equal ["j2", "boom", 0], [retry_entry.jid, retry_entry["error_message"], retry_entry["retry_count"]]
    assert_equal [[ArgumentError, "Job raised exception", "ProcessorApp::Boom"]], @errors
    assert_equal 1, Sidekiq::Processor::FAILURE.reset
  end

  def test_a_job_that_is_not_json_goes_to_the_dead_set_with_its_bytes
    processor.process(unit('{"class":"ProcessorApp::Greet",'))
    dead = Sidekiq::DeadSet.new.to_a
    assert_equal 1, dead.size
    assert_equal '{"class":"ProcessorApp::Greet",', dead.first["raw"].unpack1("m0")
    assert_equal [[JSON::ParserError, "Invalid JSON for job", nil]], @errors
  end

  def test_a_custom_job_logger_runs_around_the_job
    lines = []
    logger = Class.new(Sidekiq::JobLogger) do
      define_method(:call) do |item, _queue, &block|
        lines << item["jid"]
        block.call
      end
    end
    @config[:job_logger] = logger
    processor.process(unit("class" => "ProcessorApp::Greet", "args" => ["bo"], "jid" => "j3"))
    assert_equal ["j3"], lines
  end

  def test_an_interrupted_iterable_job_goes_back_to_its_queue_to_resume
    jid = "it1"
    assert_raises(Sidekiq::JobRetry::Skip) { processor.process(unit("class" => "ProcessorApp::Steps", "args" => [], "jid" => jid)) }
    assert_equal [1, 2], ProcessorApp::RAN
    requeued = Sidekiq::Queue.new.map(&:jid)
    assert_equal [jid], requeued, "the same job, which resumes from its cursor"
    ProcessorApp::RAN << :resumed
    processor.process(unit("class" => "ProcessorApp::Steps", "args" => [], "jid" => jid))
    assert_equal [1, 2, :resumed, 3, 4], ProcessorApp::RAN
  end

  def test_a_failed_fetch_is_reported_once
    capsule = @config.default_capsule
    capsule.fetcher.define_singleton_method(:retrieve_work) { raise IOError, "gone" }
    worker = processor
    worker.define_singleton_method(:sleep) { |_seconds| nil }
    2.times { worker.process_one }
    assert_equal [[IOError, nil, nil]], @errors
  end

  def test_basic_fetch_orders_queues_and_puts_units_back
    capsule = @config.default_capsule
    capsule.queues = %w[critical default]
    assert_equal %w[queue:critical queue:default], Sidekiq::BasicFetch.new(capsule).queues_cmd
    capsule.queues = [["a", 1], ["b", 1]]
    assert_equal %w[queue:a queue:b], Sidekiq::BasicFetch.new(capsule).queues_cmd.sort
    Sidekiq::BasicFetch.new(capsule).bulk_requeue([unit("x", "queue:a"), unit("y", "queue:a"), unit("z", "queue:b")])
    assert_equal [%w[x y], %w[z]], Sidekiq.redis { |conn| [conn.lrange("queue:a", 0, -1), conn.lrange("queue:b", 0, -1)] }
    unit("w", "queue:a").requeue
    assert_equal "w", Sidekiq.redis { |conn| conn.rpop("queue:a") }, "at the front: taken next"
  end

  def test_a_started_poller_moves_due_jobs_until_terminated
    Deckhand.config.scheduler_interval = 0.05
    poller = Sidekiq::Scheduled::Poller.new(@config)
    poller.start
    ProcessorApp::Greet.perform_at(Time.now.to_f - 1, "due")
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 10
    sleep 0.02 until Sidekiq::Queue.new.size == 1 || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
    assert_equal 1, Sidekiq::Queue.new.size
    poller.terminate
    refute Thread.list.any? { |thread| thread.name.to_s.include?("scheduler") && thread.alive? }, "its thread ended"
  end
end
