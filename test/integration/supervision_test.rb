# frozen_string_literal: true

require "test_helper"

# A worker or background thread that dies, whatever kills it, is noticed: the
# job it held is settled as a failure (never left in flight in a live
# process), the thread is replaced, and the capsule keeps its full concurrency.
class SupervisionTest < Minitest::Test
  # Ends its own thread, as a job calling Thread.exit (or a library doing so) would.
  class ExitJob
    include Deckhand::Job

    deckhand_options retry: 3

    def perform = Thread.current.exit
  end

  # Fails, and its retry rule ends the thread recording the failure, once
  # (as a library calling Thread.exit there would): the thread dies before
  # the outcome is written.
  class ExitWhileRecordingJob
    include Deckhand::Job

    deckhand_options retry: 3
    @lock = Mutex.new
    @exited = false

    # True the first time only.
    def self.first_time? = @lock.synchronize { !@exited && (@exited = true) }

    deckhand_retry_in do |_count, _error, _job|
      Thread.current.exit if ExitWhileRecordingJob.first_time?
      10
    end

    def perform = raise(ArgumentError, "failed on purpose")
  end

  # Holds its thread until `concurrency` of its kind run at once (or 5 s):
  # the highest number seen running together is the capsule's real width.
  class WidthJob
    include Deckhand::Job

    @lock = Mutex.new
    @changed = ConditionVariable.new
    @running = 0
    @widest = 0

    class << self
      attr_reader :widest

      def reset = @lock.synchronize { @running = @widest = 0 }

      def enter(target)
        @lock.synchronize do
          @running += 1
          @widest = [@widest, @running].max
          @changed.broadcast
          deadline = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) + 5
          while @widest < target && (left = deadline - ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)) > 0
            @changed.wait(@lock, left)
          end
        end
      end

      def leave = @lock.synchronize { @running -= 1 }
    end

    def perform(target)
      self.class.enter(target)
    ensure
      self.class.leave
    end
  end

  def setup
    super
    WidthJob.reset
    @log = StringIO.new
    Deckhand.config = new_config(concurrency: 3, heartbeat_interval: 0.2, timeout: 2)
    Deckhand.config.logger = Logger.new(@log)
  end

  def queues = ["default"]

  def assert_full_width(width = 3)
    width.times { WidthJob.perform_async(width) }
    wait_for(message: "#{width} jobs at once") { WidthJob.widest == width }
  end

  def retried(klass)
    zset("retry").map(&:first).find { |job| job["class"] == klass.name }
  end

  def test_a_job_that_ends_its_thread_is_retried_and_its_thread_replaced
    with_server do |launcher|
      jid = ExitJob.perform_async
      job = wait_for(message: "the job in the retry set") { retried(ExitJob) }
      assert_equal jid, job["jid"]
      assert_equal "Deckhand::ThreadDied", job["error_class"]
      assert_match(/worker thread running this job ended/, job["error_message"])
      wait_for(message: "nothing left in flight") { inflight_count(launcher.identity).zero? }
      assert_full_width
    end
    assert_match(/default-\d crashed: its thread was ended/, @log.string)
  end

  def test_a_thread_that_ends_while_recording_a_failure_is_replaced_and_the_job_settled_once
    with_server do |launcher|
      jid = ExitWhileRecordingJob.perform_async
      job = wait_for(message: "the job in the retry set") { retried(ExitWhileRecordingJob) }
      assert_equal [jid, "Deckhand::ThreadDied", 0], job.values_at("jid", "error_class", "retry_count")
      assert_match(/worker thread running this job ended/, job["error_message"])
      wait_for(message: "nothing left in flight") { inflight_count(launcher.identity).zero? }
      assert_full_width
    end
    assert_equal 1, redis.call("ZCARD", "retry")
    assert_match(/default-\d crashed: its thread was ended/, @log.string)
  end

  def test_a_dead_fetcher_is_restarted_and_the_capsule_fed_again
    with_server do
      assert_full_width(1)
      fetcher = -> { Thread.list.find { |t| t.name == "deckhand-fetch-default" && t.alive? } }
      wait_for(message: "the fetcher thread") { fetcher.call }.kill
      wait_for(message: "a new fetcher thread") { fetcher.call }
      RecordJob.perform_async("after")
      wait_for(message: "a job fetched by the new thread") { Deckhand::TestJobs.runs.map(&:last) == [["after"]] }
    end
    assert_includes @log.string, "fetch-default crashed: its thread was ended (Thread.exit or kill); restarting"
  end

  def test_a_component_that_gives_up_stops_the_server_and_calls_on_fatal
    fatal = Queue.new
    RecordJob.perform_async("before")
    launcher = Deckhand::Server::Launcher.new(Deckhand.config.freeze!, on_fatal: ->(error) { fatal << error })
    launcher.start
    wait_for(message: "the job") { Deckhand::TestJobs.runs.size == 1 }
    scheduler = launcher.instance_variable_get(:@scheduler)
    scheduler.send(:fatal, RuntimeError.new("kept crashing"))
    assert_equal "kept crashing", fatal.pop.message
    assert launcher.stopping?
    assert_equal 0, redis.call("HEXISTS", "deckhand:owners", launcher.identity), "a stopped server hands everything back"
    assert_includes @log.string, "scheduler cannot keep running (RuntimeError: kept crashing); stopping this process"
  ensure
    launcher&.stop
  end
end
