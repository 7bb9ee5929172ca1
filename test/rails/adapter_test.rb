# frozen_string_literal: true

require_relative "rails_helper"
require_relative "../support/second_redis"

# Active Job on Deckhand, against the real activejob gem.
class DeckhandAdapterTest < Minitest::Test
  include Deckhand::RailsTestApp

  WRAPPER = "ActiveJob::QueueAdapters::DeckhandAdapter::JobWrapper"

  def test_perform_later_pushes_a_wrapped_job
    job = RailsJobs::GreetJob.perform_later("ada", {"loud" => true})
    pushed = jobs_in("mailers")
    assert_equal 1, pushed.size
    payload = pushed.first
    assert_equal [WRAPPER, "RailsJobs::GreetJob", "mailers"], payload.values_at("class", "wrapped", "queue")
    assert_equal job.provider_job_id, payload["jid"]
    data = payload["args"].first
    assert_equal [job.job_id, "RailsJobs::GreetJob"], data.values_at("job_id", "job_class")
    assert_equal ["ada", {"loud" => true}], ActiveJob::Arguments.deserialize(data["arguments"])
    assert job.successfully_enqueued?
  end

  # deckhand_options retry: and backtrace: go with each job; deckhand_retry_in
  # and deckhand_retries_exhausted of the Active Job class decide its retries.
  def test_the_retry_options_and_rules_of_an_active_job_class_take_effect
    jid = RailsJobs::CountedJob.perform_later("first").provider_job_id
    assert_equal [1, 3, "default"], jobs_in("default").first.values_at("retry", "backtrace", "queue")
    with_server(rails_config) do
      wait_for(message: "the retry") { redis.call("ZCARD", "retry") == 1 }
      retried, score = zset("retry").first
      assert_equal [jid, 0], retried.values_at("jid", "retry_count")
      assert_in_delta Time.now.to_f + 1000, score, 30, "due after deckhand_retry_in's 1000 s"
      redis.call("ZADD", "retry", "XX", 0, redis.call("ZRANGE", "retry", 0, 0).first) # due now: its second failure exhausts retry: 1
      wait_for(message: "the dead job") { redis.call("ZCARD", "dead") == 1 }
    end
    assert_equal [["exhausted", "RailsJobs::CountedJob", "first failed"]], recorded
  end

  def test_perform_later_in_a_via_block_goes_to_that_redis
    other = Deckhand::SecondRedis.client
    other.call("FLUSHALL")
    job = Deckhand::Client.via(Deckhand::SecondRedis.url) { RailsJobs::GreetJob.perform_later("eu") }
    assert_equal [job.provider_job_id], other.call("LRANGE", "queue:mailers", 0, -1).map { |raw| JSON.parse(raw)["jid"] }
    assert_empty jobs_in("mailers")
  end

  # Sidekiq 8's convention: a job that answers `profile` is pushed with it.
  module Profileable
    attr_accessor :profile

    def set(options = {})
      self.profile = options[:profile]
      super
    end
  end

  # Active Job is loaded with the test app, after this file.
  def profiled_job
    return self.class::ProfiledJob if self.class.const_defined?(:ProfiledJob, false)
    self.class.const_set(:ProfiledJob, Class.new(ActiveJob::Base) {
      include Profileable

      def perform = nil
    })
  end

  def test_a_job_that_answers_profile_is_pushed_with_it_and_one_that_does_not_without
    profiled_job.set(profile: "oli").perform_later
    profiled_job.set(wait: 600, profile: "oli").perform_later
    RailsJobs::GreetJob.perform_later("ada")
    assert_equal "oli", jobs_in("default").first["profile"]
    assert_equal "oli", zset("schedule").first.first["profile"]
    refute jobs_in("mailers").first.key?("profile")
  end

  def test_scheduled_jobs_go_to_the_schedule_set
    before = Time.now.to_f
    job = RailsJobs::GreetJob.set(wait: 300).perform_later("later")
    entries = zset("schedule")
    assert_equal 1, entries.size
    payload, score = entries.first
    assert_equal job.provider_job_id, payload["jid"]
    assert_in_delta before + 300, score, 5
    assert_empty jobs_in("mailers")
  end

  def test_perform_all_later_pushes_in_bulk
    redis.call("CONFIG", "RESETSTAT")
    jobs = Array.new(3) { |i| RailsJobs::GreetJob.new("n#{i}") } +
      [RailsJobs::GreetJob.new("soon").set(wait: 60), RailsJobs::FlakyJob.new("k")]
    ActiveJob.perform_all_later(jobs)
    assert jobs.all?(&:successfully_enqueued?)
    assert jobs.all? { |job| job.provider_job_id.match?(/\A\h{24}\z/) }
    assert_equal %w[n0 n1 n2], jobs_in("mailers").map { |p| p["args"].first["arguments"].first }.sort
    assert_equal 1, zset("schedule").size
    assert_equal 1, jobs_in("default").size
    stats = redis.call("INFO", "commandstats")
    assert_equal 2, stats[/cmdstat_lpush:calls=(\d+)/, 1].to_i, "one LPUSH per class and queue"
  end

  # Active Job's priority is Deckhand's (docs/priority.md): lower runs first.
  def test_active_job_priority_files_the_job_at_its_level
    RailsJobs::GreetJob.set(priority: -10).perform_later("urgent")
    ActiveJob.perform_all_later([RailsJobs::GreetJob.new("later").set(priority: 5), RailsJobs::GreetJob.new("plain")])
    level = ->(n) { redis.call("LRANGE", Deckhand::Store::Layout::Plain.priority("mailers", n), 0, -1).map { |raw| JSON.parse(raw) } }
    assert_equal [["urgent", -10]], level.call(-10).map { |p| [p["args"].first["arguments"].first, p["priority"]] }
    assert_equal [["later", 5]], level.call(5).map { |p| [p["args"].first["arguments"].first, p["priority"]] }
    assert_equal [["plain", nil]], jobs_in("mailers").map { |p| [p["args"].first["arguments"].first, p["priority"]] }
  end

  def test_retry_on_discard_on_and_errors_let_through
    RailsJobs::FlakyJob.perform_later("f")
    RailsJobs::DiscardedJob.perform_later
    RailsJobs::DoomedJob.perform_later
    seen = []
    with_server(rails_config(concurrency: 2)) do
      wait_for(message: "the jobs to settle") do
        seen.concat(recorded)
        seen.count { |e| e[0] == "flaky" } == 3 && seen.count { |e| e[0] == "doomed" } == 2 &&
          seen.assoc("discarded") && redis.call("ZCARD", "retry") == 1
      end
    end
    assert_equal [1, 2, 3], seen.select { |e| e[0] == "flaky" }.map(&:last)
    assert_equal [1], seen.select { |e| e[0] == "discarded" }.map(&:last)
    retried, = zset("retry").first
    assert_equal ["RailsJobs::DoomedJob", "RailsJobs::Doomed", "no luck"], retried.values_at("wrapped", "error_class", "error_message")
    assert_equal 0, redis.call("ZCARD", "dead")
  end

  def test_stopping_follows_the_process_lifecycle
    adapter = ActiveJob::Base.queue_adapter
    Deckhand::Lifecycle.reset!
    refute adapter.stopping?
    Deckhand::Lifecycle.stopping!
    assert adapter.stopping?
    RailsJobs::StoppingJob.perform_later
    with_server(rails_config) { wait_for(message: "the job") { (@seen = recorded).any? } }
    assert_equal [["stopping", true]], @seen
  ensure
    Deckhand::Lifecycle.reset!
  end
end
