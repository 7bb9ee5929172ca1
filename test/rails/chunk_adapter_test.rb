# frozen_string_literal: true

require_relative "rails_helper"

# An Active Job class opts into chunks (docs/chunks.md) as a Deckhand job
# does: its jobs, pushed one a record with perform_later, run together,
# each member's arguments deserialized as its own perform would get them,
# a member that fails retried alone.
class ChunkAdapterTest < Minitest::Test
  include Deckhand::RailsTestApp

  def setup
    super
    RailsJobs::ChunkedSyncJob::CALLS.clear
  end

  def test_an_active_job_class_runs_its_jobs_in_one_chunk_and_a_failed_member_retries_alone
    at = Time.utc(2026, 11, 29, 10, 0, 0)
    ActiveJob.perform_all_later([RailsJobs::ChunkedSyncJob.new("ada", at), RailsJobs::ChunkedSyncJob.new("bad", at), RailsJobs::ChunkedSyncJob.new("bob", at)])
    with_server(rails_config(concurrency: 1)) do
      wait_for(message: "the failed member in retry") { redis.call("ZCARD", "retry") == 1 }
    end
    assert_equal [[["ada", at], ["bad", at], ["bob", at]]], [RailsJobs::ChunkedSyncJob::CALLS.pop], "one call, arguments deserialized"
    assert RailsJobs::ChunkedSyncJob::CALLS.empty?
    retried = zset("retry").first.first
    assert_equal ["ArgumentError", "no bad", "RailsJobs::ChunkedSyncJob"], retried.values_at("error_class", "error_message", "wrapped")
    assert_equal "bad", retried["args"].first["arguments"].first
    assert_empty jobs_in("default")
  end
end
