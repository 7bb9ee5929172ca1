# frozen_string_literal: true

require "test_helper"
require_relative "../../../support/fiber_jobs"

# A fiber capsule's workers are supervised as processor threads are: a dead
# worker fiber is replaced and its job settled, a job that ends the reactor's
# thread takes its fibers with it and the thread restarts, and a job that
# blocks the reactor is named in the log.
class FiberSupervisionTest < Minitest::Test
  class ExitJob
    include Deckhand::Job

    deckhand_options retry: 3

    def perform = Thread.current.exit
  end

  # Raises the server's shutdown interrupt itself, the one exception a
  # runner lets through: its worker fiber dies holding the job.
  class ShutdownJob
    include Deckhand::Job

    deckhand_options retry: 3

    def perform = raise(Deckhand::Shutdown, "raised by the job")
  end

  def setup
    super
    skip_on_jruby("fiber capsules refuse to start there (test/unit/server/fibers/fiber_config_test.rb)")
    Deckhand::Crowd.reset
    @log = StringIO.new
    Deckhand.config = new_config(concurrency: 1, heartbeat_interval: 0.2, timeout: 2)
    Deckhand.config.logger = Logger.new(@log)
    Deckhand.config.capsule("io", concurrency: 4, queues: ["io"], fibers: true)
  end

  def queues = %w[default io]

  def retried(klass) = zset("retry").map(&:first).find { |job| job["class"] == klass.name }

  def assert_full_width(width = 4)
    Deckhand::Crowd.reset
    Deckhand::Client.push_bulk("class" => "CrowdSleepJob", "queue" => "io", "args" => Array.new(width) { [width, 0] })
    wait_for(message: "#{width} jobs at once") { Deckhand::Crowd.widest == width }
  end

  def test_a_dead_worker_fiber_is_replaced_and_its_job_retried
    with_server do |launcher|
      ShutdownJob.set(queue: "io").perform_async
      job = wait_for(message: "the job in the retry set") { retried(ShutdownJob) }
      assert_equal "Deckhand::ThreadDied", job["error_class"]
      assert_match(/Deckhand::Shutdown: raised by the job/, job["error_message"])
      wait_for(message: "nothing left in flight") { inflight_count(launcher.identity, queues).zero? }
      assert_full_width
    end
    assert_match(/io-\d crashed: Deckhand::Shutdown: raised by the job; restarting its fiber/, @log.string)
  end

  def test_a_job_that_ends_the_reactors_thread_is_retried_and_the_thread_restarted
    with_server do |launcher|
      jid = ExitJob.set(queue: "io").perform_async
      job = wait_for(message: "the job in the retry set") { retried(ExitJob) }
      assert_equal jid, job["jid"]
      assert_equal "Deckhand::ThreadDied", job["error_class"]
      wait_for(message: "nothing left in flight") { inflight_count(launcher.identity, queues).zero? }
      assert_full_width
    end
    assert_match(/io-fibers crashed: its thread was ended/, @log.string)
  end

  def test_a_job_that_blocks_the_reactor_is_reported_with_its_class
    with_server do
      jid = BusyJob.set(queue: "io").perform_async(1.5)
      wait_for(message: "the busy job") { Deckhand::TestJobs.runs.size == 1 }
      wait_for(message: "the report") { @log.string.include?("has blocked the reactor") }
      assert_match(/BusyJob jid=#{jid} has blocked the reactor of fiber capsule io for \d\.\d+s \(at .*fiber_jobs\.rb:\d+/, @log.string)
      assert_full_width
    end
  end
end
