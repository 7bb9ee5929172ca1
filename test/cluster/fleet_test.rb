# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "support/cluster_helpers"

# What a server process writes for the fleet in cluster mode: its process
# record and beat, the stats counters and the per-class metrics, all in the
# fleet's slot, read back by the data API.
class ClusterFleetTest < Minitest::Test
  include Deckhand::ClusterHelpers

  def test_a_server_s_record_counters_and_metrics_read_back_through_the_api
    Deckhand.config = new_config(heartbeat_interval: 0.2, concurrency: 2)
    3.times { |i| RecordJob.perform_async("job-#{i}") }
    api = Deckhand::API.new
    with_server do |launcher|
      wait_for(message: "the jobs to run") { Deckhand::TestJobs.runs.size == 3 }
      wait_for(message: "the process in the process set") { api.processes.map(&:identity).include?(launcher.identity) }
      wait_for(message: "the counters of a beat") { cluster.call("GET", keys::PROCESSED).to_i == 3 }
      wait_for(message: "a flush of the metrics") do
        api.metrics(period: "1h").classes.find { |row| row.name == "RecordJob" }&.count == 3
      end
      assert_equal 1, cluster.call("EXISTS", keys.process(launcher.identity))
      assert_equal 1, cluster.call("SISMEMBER", keys::PROCESSES, launcher.identity)
    end
    assert_empty api.processes.map(&:identity), "a stopped process leaves the set"
  end
end
