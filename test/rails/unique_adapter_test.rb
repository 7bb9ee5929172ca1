# frozen_string_literal: true

require_relative "rails_helper"

# Unique and expiring options on Active Job classes, through the Deckhand adapter.
class UniqueAdapterTest < Minitest::Test
  include Deckhand::RailsTestApp

  # Defined once the Rails app has booted (ApplicationJob is the app's).
  def setup
    super
    return if self.class.const_defined?(:SyncJob, false)
    self.class.const_set(:SyncJob, Class.new(ApplicationJob) do
      extend Deckhand::Job::Declarations

      deckhand_options unique_for: 600, expires_in: 3600
      deckhand_unique_args { |args| args.first(1) }

      def perform(id, note)
        RailsJobs.record("sync", id, note)
      end
    end)
  end

  def test_a_duplicate_perform_later_is_not_pushed_and_the_success_frees_the_lock
    first = self.class::SyncJob.perform_later(1, "a")
    second = self.class::SyncJob.perform_later(1, "b") # same first argument: the same job
    other = self.class::SyncJob.perform_later(2, "a")
    assert first.provider_job_id
    assert_nil second.provider_job_id
    assert other.provider_job_id
    assert_equal 2, jobs_in("default").size
    payload = jobs_in("default").find { |p| p["jid"] == first.provider_job_id }
    assert_equal [600, "UniqueAdapterTest::SyncJob"], payload.values_at("unique_for", "wrapped")
    assert_kind_of Float, payload["expires_at"]
    with_server(rails_config(concurrency: 2)) do
      wait_for(message: "both jobs and the releases") { redis.call("KEYS", "unique:*").empty? }
    end
    assert_equal [["sync", 1, "a"], ["sync", 2, "a"]], recorded.sort_by { |e| e[1] }
  end

  def test_perform_all_later_skips_duplicates
    ActiveJob.perform_all_later([self.class::SyncJob.new(5, "x"), self.class::SyncJob.new(5, "y"), self.class::SyncJob.new(6, "x")])
    assert_equal 2, jobs_in("default").size
  end
end
