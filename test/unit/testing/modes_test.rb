# frozen_string_literal: true

require_relative "../../support/testing/testing_helper"

class TestingModesTest < Minitest::Test
  include Deckhand::TestingHelpers

  def test_fake_collects_jobs_per_class_as_a_server_would_see_them
    Deckhand::Testing.fake!
    jid = WelcomeEmailJob.perform_async(42, {"mode" => "short"})
    RecordJob.perform_async("x")
    assert_match(/\A\h{24}\z/, jid)
    assert_equal 1, WelcomeEmailJob.jobs.size
    job = WelcomeEmailJob.jobs.first
    assert_equal [jid, [42, {"mode" => "short"}], "mailers"], [job["jid"], job["args"], job["queue"]]
    assert job["enqueued_at"], "the job carries its enqueued_at, as in Redis"
    assert_equal ["WelcomeEmailJob", "RecordJob"], Deckhand::Testing.jobs.map { |j| j["class"] }
    assert_equal 0, redis.call("LLEN", "queue:mailers"), "a fake push reached Redis"
    assert_empty Deckhand::TestJobs.runs
  end

  def test_a_class_jobs_are_one_live_array_that_clear_empties
    Deckhand::Testing.fake!
    jobs = WelcomeEmailJob.jobs
    WelcomeEmailJob.perform_async(1)
    assert_same jobs, WelcomeEmailJob.jobs
    assert_equal 1, jobs.size
    assert_equal 1, Deckhand::Testing.queues.queue("mailers").size
    jobs.clear
    assert_equal 0, WelcomeEmailJob.drain
    assert_empty Deckhand::Testing.jobs
  end

  def test_fake_keeps_scheduled_jobs_with_their_time
    Deckhand::Testing.fake!
    before = Time.now.to_f
    WelcomeEmailJob.perform_in(600, 1)
    at = WelcomeEmailJob.jobs.first["at"]
    assert_in_delta before + 600, at, 5
    assert_nil WelcomeEmailJob.jobs.first["enqueued_at"]
    assert_equal 0, redis.call("ZCARD", "schedule")
  end

  def test_drain_runs_jobs_in_order_including_those_they_push
    Deckhand::Testing.fake!
    CascadeJob.perform_async(2)
    WelcomeEmailJob.perform_async(7)
    assert_equal 3, CascadeJob.drain
    assert_equal [2, 1, 0], Deckhand::TestJobs.runs.map(&:last)
    assert_empty CascadeJob.jobs
    assert_equal 1, WelcomeEmailJob.jobs.size, "drain ran another class's job"
  end

  def test_perform_one_runs_the_oldest_and_raises_when_empty
    Deckhand::Testing.fake!
    first = WelcomeEmailJob.perform_async(1)
    WelcomeEmailJob.perform_async(2)
    WelcomeEmailJob.perform_one
    assert_equal [[first, 1, {}]], Deckhand::TestJobs.runs
    assert_equal [2], WelcomeEmailJob.jobs.map { |j| j["args"].first }
    WelcomeEmailJob.perform_one
    error = assert_raises(Deckhand::Testing::EmptyQueue) { WelcomeEmailJob.perform_one }
    assert_includes error.message, "WelcomeEmailJob"
  end

  def test_clear_and_clear_all
    Deckhand::Testing.fake!
    WelcomeEmailJob.perform_async(1)
    RecordJob.perform_async(2)
    WelcomeEmailJob.clear
    assert_empty WelcomeEmailJob.jobs
    assert_equal 1, RecordJob.jobs.size
    Deckhand::Testing.clear_all
    assert_empty Deckhand::Testing.jobs
  end

  def test_drain_all_runs_every_class
    Deckhand::Testing.fake!
    WelcomeEmailJob.perform_async(1)
    CascadeJob.perform_async(1)
    assert_equal 3, Deckhand::Testing.drain_all
    assert_empty Deckhand::Testing.jobs
  end

  def test_perform_bulk_and_client_push_are_collected
    Deckhand::Testing.fake!
    jids = WelcomeEmailJob.perform_bulk([[1], [2], [3]])
    Deckhand::Client.push("class" => "SomeOtherAppJob", "args" => ["a"])
    assert_equal jids, WelcomeEmailJob.jobs.map { |j| j["jid"] }
    assert_equal [["a"]], Deckhand::Testing.queues.for("SomeOtherAppJob").map { |j| j["args"] }
  end

  def test_client_middleware_still_runs_and_can_stop_a_push
    stopper = Class.new do
      def call(_klass, job, _queue, _store)
        yield unless job["args"] == ["stop"]
      end
    end
    Deckhand.config.client_middleware.add(stopper)
    Deckhand::Testing.fake!
    assert_nil WelcomeEmailJob.perform_async("stop")
    WelcomeEmailJob.perform_async("go")
    assert_equal [["go"]], WelcomeEmailJob.jobs.map { |j| j["args"] }
  end

  def test_inline_runs_at_once_in_the_caller_and_raises_its_errors
    Deckhand::Testing.inline!
    jid = WelcomeEmailJob.perform_async(5)
    assert_equal [[jid, 5, {}]], Deckhand::TestJobs.runs
    WelcomeEmailJob.perform_in(3600, 6)
    assert_equal 6, Deckhand::TestJobs.runs.last[1], "inline runs a scheduled job at once"
    error = assert_raises(ArgumentError) { FailJob.perform_async("boom") }
    assert_includes error.message, "failed on purpose"
    assert_empty Deckhand::Testing.jobs
    assert_equal 0, redis.call("LLEN", "queue:mailers")
  end

  # As a server does (JobClasses): a class that is no job is never built.
  def test_inline_and_drain_refuse_a_class_that_is_no_job
    built = []
    stranger = Class.new do
      define_method(:initialize) { built << :initialize }
      define_method(:perform) { |*| built << :perform }
    end
    Object.const_set(:TestingStranger, stranger)
    error = Deckhand::Testing.inline! do
      assert_raises(Deckhand::NotAJobClass) { Deckhand::Client.push("class" => "TestingStranger", "args" => [1]) }
    end
    assert_match(/\ATestingStranger is not a job class: include Deckhand::Job/, error.message)
    Deckhand::Testing.fake! { Deckhand::Client.push("class" => "TestingStranger", "args" => [2]) }
    assert_raises(Deckhand::NotAJobClass) { Deckhand::Testing.drain_all }
    assert_empty built
  ensure
    Object.send(:remove_const, :TestingStranger) if Object.const_defined?(:TestingStranger, false)
  end

  def test_inline_and_drain_run_the_testing_server_middleware
    seen = []
    tracer = Class.new do
      define_method(:call) do |job, payload, queue, &block|
        seen << [job.class.name, payload["args"], queue]
        block.call
      end
    end
    Deckhand::Testing.server_middleware.add(tracer)
    Deckhand::Testing.inline! { WelcomeEmailJob.perform_async(1) }
    Deckhand::Testing.fake! { WelcomeEmailJob.perform_async(2) }
    WelcomeEmailJob.drain
    assert_equal [["WelcomeEmailJob", [1], "mailers"], ["WelcomeEmailJob", [2], "mailers"]], seen
  ensure
    Deckhand::Testing.server_middleware.remove(tracer)
  end

  def test_disable_pushes_to_redis
    Deckhand::Testing.fake!
    Deckhand::Testing.disable!
    WelcomeEmailJob.perform_async(3)
    WelcomeEmailJob.perform_in(600, 4)
    assert_equal [[3]], jobs_in("mailers").map { |j| j["args"] }
    assert_equal 1, redis.call("ZCARD", "schedule")
    assert_empty Deckhand::Testing.jobs
  end

  def test_block_forms_restore_the_previous_mode_even_on_error
    Deckhand::Testing.fake!
    Deckhand::Testing.inline! do
      assert Deckhand::Testing.inline?
      Deckhand::Testing.disable! { WelcomeEmailJob.perform_async(1) }
      assert Deckhand::Testing.inline?
    end
    assert Deckhand::Testing.fake?
    assert_raises(RuntimeError) { Deckhand::Testing.disable! { raise "inside" } }
    assert Deckhand::Testing.fake?
    assert_equal 1, redis.call("LLEN", "queue:mailers")
  end

  def test_block_forms_belong_to_the_calling_thread
    Deckhand::Testing.fake!
    ready = Queue.new
    release = Queue.new
    other = Thread.new do
      Deckhand::Testing.inline! do
        ready << Deckhand::Testing.mode
        release.pop
        WelcomeEmailJob.perform_async("other")
      end
    end
    assert_equal :inline, ready.pop
    assert Deckhand::Testing.fake?, "another thread's block changed this thread's mode"
    WelcomeEmailJob.perform_async("mine")
    release << true
    other.join
    assert_equal [["mine"]], WelcomeEmailJob.jobs.map { |j| j["args"] }
    assert_equal ["other"], Deckhand::TestJobs.runs.map { |run| run[1] }
  end

  def test_many_threads_pushing_lose_no_job
    Deckhand::Testing.fake!
    threads = Array.new(8) { |t| Thread.new { 250.times { |i| WelcomeEmailJob.perform_async(t * 1000 + i) } } }
    threads.each(&:join)
    args = WelcomeEmailJob.jobs.map { |j| j["args"].first }
    assert_equal 2000, args.size
    assert_equal 2000, args.uniq.size
  end

  def test_unknown_mode_is_refused
    assert_raises(ArgumentError) { Deckhand::Testing.send(:switch, :sometimes) }
  end

  class ChunkedTestingJob
    include Deckhand::Job

    deckhand_options chunk: {size: 100}

    def perform_chunk(chunk)
      chunk.each do |(n), job|
        Deckhand::TestJobs.record([chunk.size, n])
        chunk.fail(job, ArgumentError.new("no #{n}")) if n.negative?
      end
    end
  end

  # Jobs run one at a time in testing mode: a chunked class's as a chunk of
  # one, as a server runs a lone job of it, its member's failure raised.
  def test_a_chunked_class_runs_each_job_as_a_chunk_of_one_and_raises_its_failure
    Deckhand::Testing.fake!
    ChunkedTestingJob.perform_async(1)
    ChunkedTestingJob.perform_async(2)
    assert_equal 2, ChunkedTestingJob.drain
    assert_equal [[1, 1], [1, 2]], Deckhand::TestJobs.runs
    ChunkedTestingJob.perform_async(-1)
    assert_equal "no -1", assert_raises(ArgumentError) { ChunkedTestingJob.drain }.message
    Deckhand::Testing.inline!
    ChunkedTestingJob.perform_async(3)
    assert_equal [1, 3], Deckhand::TestJobs.runs.last
  end
end
