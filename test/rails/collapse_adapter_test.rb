# frozen_string_literal: true

require_relative "rails_helper"

# Debounce and dedupe on Active Job classes, through the Deckhand adapter:
# the key's callable gets the job's own arguments.
class CollapseAdapterTest < Minitest::Test
  include Deckhand::RailsTestApp

  # Defined once the Rails app has booted (ApplicationJob is the app's).
  def setup
    super
    return if self.class.const_defined?(:ReindexJob, false)
    self.class.const_set(:ReindexJob, Class.new(ApplicationJob) do
      extend Deckhand::Job::Declarations

      deckhand_options debounce: {key: ->(args) { args.first }, wait: 0.3}

      def perform(id, revision) = RailsJobs.record("reindex", id, revision)
    end)
    self.class.const_set(:SyncJob, Class.new(ApplicationJob) do
      extend Deckhand::Job::Declarations

      deckhand_options dedupe: {key: ->(args) { args.first }, ttl: 600}

      def perform(id) = RailsJobs.record("sync", id)
    end)
  end

  def test_a_burst_of_perform_later_runs_once_and_a_duplicate_gets_no_provider_job_id
    jobs = (1..3).map { |n| self.class::ReindexJob.perform_later("doc-1", n) }
    assert(jobs.all?(&:provider_job_id), "every debounced push is taken")
    scheduled = redis.call("ZRANGE", "schedule", 0, -1).map { |raw| JSON.parse(raw) }
    assert_equal [jobs.last.provider_job_id], scheduled.map { |payload| payload["jid"] }
    assert_equal({"key" => "doc-1", "wait" => 0.3}, scheduled.first["debounce"])
    assert self.class::SyncJob.perform_later(7).provider_job_id
    assert_nil self.class::SyncJob.perform_later(7).provider_job_id, "kept out while the first waits"
    runs = [] # `recorded` takes what it returns
    with_server(rails_config(concurrency: 2, scheduler_interval: 0.05)) do
      wait_for(message: "the runs") { runs.concat(recorded).size >= 2 }
      sleep 0.5
    end
    assert_equal [["reindex", "doc-1", 3], ["sync", 7]], runs.concat(recorded).sort_by(&:first)
  end
end
