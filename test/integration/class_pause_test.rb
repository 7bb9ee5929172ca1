# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

# Pause by job class, with a server in this process (its first heartbeat,
# before its capsules start, reads the paused classes): the jobs of a paused
# class wait, held as they were fetched, while the other jobs of the same
# queue run; a resume puts them back and each runs once.
class ClassPauseTest < Minitest::Test
  class ReportJob
    include Deckhand::Job

    def perform(*args) = Deckhand::TestJobs.record([:report, args])
  end

  def setup
    super
    @pusher = Deckhand::Client.pusher
    Deckhand::Client.pusher = nil # straight to Redis, whatever an earlier test left
    Deckhand.config = new_config(concurrency: 2, heartbeat_interval: 0.1, scheduler_interval: 0.05, timeout: 2)
  end

  def teardown
    Deckhand::Client.pusher = @pusher
    super
  end

  def pauses = Deckhand::API.new.class_pauses

  def held = redis.call("ZRANGE", "deckhand:held:default:#{ReportJob.name}", 0, -1)

  def test_a_paused_class_waits_while_its_queue_runs_and_runs_once_on_resume
    assert pauses.pause(ReportJob)
    refute pauses.pause(ReportJob.name), "paused already"
    with_server do
      pushed = (1..3).map { |n| ReportJob.perform_async(n, "caf\u00e9", 1.0) }
      3.times { |n| RecordJob.perform_async(n) }
      wait_for(message: "the other class's jobs") { Deckhand::TestJobs.runs.size == 3 }
      wait_for(message: "the paused class's jobs held") { held.size == 3 }
      assert_equal pushed.sort, held.map { |raw| JSON.parse(raw)["jid"] }.sort
      held.each { |raw| assert_match(/"args":\[\d,"café",1\.0\],/, raw, "held as fetched, byte for byte") }
      assert_equal [[ReportJob.name, 3]], pauses.held.to_a
      assert(Deckhand::TestJobs.runs.none? { |kind, _| kind == :report })
      # A server seeing the resume at its next beat may move some back before
      # the resume's own move does: each is moved once, by one of them.
      assert_includes 0..3, pauses.resume(ReportJob)
      wait_for(message: "the held jobs' runs") { Deckhand::TestJobs.runs.count { |kind, _| kind == :report } == 3 }
      sleep 0.3
      reports = Deckhand::TestJobs.runs.filter_map { |kind, args| args if kind == :report }
      assert_equal [1, 2, 3], reports.map(&:first).sort, "each once"
      assert_equal [["caf\u00e9", 1.0]], reports.map { |args| args.drop(1) }.uniq
      assert_equal 3, pushed.uniq.size
      assert_empty held
      assert_empty pauses.paused
    end
  end

  # A resume whose mover stopped before moving (or a job a process held
  # while it still believed the class paused): the process that sees the
  # class resumed moves what it holds back with its next beat.
  def test_a_process_that_sees_its_class_resumed_moves_what_it_held_back
    pauses.pause(ReportJob)
    with_server do
      ReportJob.perform_async(7)
      wait_for(message: "held") { held.size == 1 }
      redis.call("SREM", Deckhand::Store::Layout::Untagged::PAUSED_CLASSES, ReportJob.name) # no mover
      wait_for(message: "the run") { Deckhand::TestJobs.runs == [[:report, [7]]] }
      assert_empty held
    end
  end

  def test_a_class_is_named_by_its_class_or_its_name
    error = assert_raises(ArgumentError) { pauses.pause(nil) }
    assert_includes error.message, "name a job class"
    assert pauses.pause("Reports::NightlyJob")
    assert pauses.paused?("Reports::NightlyJob")
    assert_equal 0, pauses.resume("Reports::NightlyJob")
    refute pauses.paused?("Reports::NightlyJob")
  end

  # A held job is waiting in its queue: Client.cancel finds it in its held
  # set, takes it out and records it as cancelled, and it never runs after
  # a resume; the job held beside it is kept byte for byte.
  def test_a_held_job_is_cancelled_by_its_jid
    pauses.pause(ReportJob)
    heard = []
    Deckhand.config.on_cancelled { |job, where| heard << [job["jid"], where] }
    with_server do
      gone, kept = ReportJob.perform_async(1), ReportJob.perform_async(2, "caf\u00e9")
      wait_for(message: "both jobs held") { held.size == 2 }
      kept_raw = held.find { |raw| raw.include?(kept) }
      assert_equal :removed_from_queue, Deckhand::Client.cancel(gone)
      assert_equal [kept_raw], held
      record = Deckhand::API.new.cancellation(gone)
      assert_equal [ReportJob.name, "default", "held"], [record.job_class, record.queue, record.where]
      assert_equal [[gone, "held"]], heard
      assert_nil redis.call("GET", "deckhand:cancel:#{gone}"), "the mark goes with the job"
      # The server, seeing the resume at its next beat, may move the kept job
      # back before the resume's own move does: it is moved once, by one of them.
      assert_includes [0, 1], pauses.resume(ReportJob)
      wait_for(message: "the kept job's run") { Deckhand::TestJobs.runs.any? { |kind, _| kind == :report } }
      sleep 0.3
      assert_equal [[2, "caf\u00e9"]], Deckhand::TestJobs.runs.filter_map { |kind, args| args if kind == :report }
      assert_equal :not_found, Deckhand::Client.cancel(gone)
    end
  end
end
