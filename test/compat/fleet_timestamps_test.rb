# frozen_string_literal: true

require "test_helper"
require_relative "compat_helper"

# timestamps: :auto on a Deckhand server follows the fleet at the heartbeat
# after a Sidekiq 7 process registers or leaves, not CHECK_EVERY (30 s) later:
# meanwhile Sidekiq 7's dashboard would read the jobs' millisecond
# timestamps as seconds (latencies of -1.8e12 s).
class FleetTimestampsTest < Minitest::Test
  include Deckhand::CompatTest

  # Well inside FleetVersions::CHECK_EVERY, the look that comes anyway.
  PROMPTLY = 10

  def test_a_server_switches_to_float_at_the_next_heartbeat_after_a_sidekiq_7_process_registers_and_back_after_it_leaves
    config = fast_config(timestamps: :auto)
    Deckhand.config = config
    with_server(config) do
      wait_for(message: "Deckhand's first look") { config.fleet_versions.due? == false }
      assert_equal :millis, config.timestamps
      Deckhand::SidekiqHarness.server(queues: ["sidekiq-only"]) do
        wait_for(message: "the Sidekiq 7 process record") { Sidekiq::ProcessSet.new.any? { |process| process["version"].to_s.start_with?("7.") } }
        wait_for(timeout: PROMPTLY, message: "Float seconds, at the next heartbeat") { config.timestamps == :float }
        jid = CompatFlakyJob.set(queue: "unworked").perform_async("stamped", 0)
        stamped = jobs_in("unworked").find { |job| job["jid"] == jid }
        assert_kind_of Float, stamped["created_at"]
        assert_in_delta 0, Sidekiq::Queue.new("unworked").latency, 60, "Sidekiq 7 reads the job's age right"
      end
      wait_for(timeout: PROMPTLY, message: "Integer milliseconds again once Sidekiq left") { config.timestamps == :millis }
    end
  end
end
