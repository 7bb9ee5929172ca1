# frozen_string_literal: true

require "test_helper"
require_relative "compat_helper"

# A Deckhand server follows the Sidekiq versions sharing its Redis at the
# heartbeat after a Sidekiq process registers or leaves, not CHECK_EVERY
# (30 s) later: with a Sidekiq 7, timestamps: :auto writes Float seconds
# (meanwhile Sidekiq 7's dashboard would read the jobs' millisecond
# timestamps as seconds: latencies of -1.8e12 s); with either, Active Job's
# wrapper class and the metrics layouts follow.
class FleetTimestampsTest < Minitest::Test
  include Deckhand::CompatTest

  # Well inside FleetVersions::CHECK_EVERY, the look that comes anyway.
  PROMPTLY = 10

  def test_a_server_follows_a_sidekiq_process_at_the_next_heartbeat_after_it_registers_and_after_it_leaves
    config = fast_config(timestamps: :auto)
    Deckhand.config = config
    fleet = config.fleet_versions
    with_server(config) do
      wait_for(message: "Deckhand's first look") { fleet.due? == false }
      assert_equal [:millis, [7, 8]], [config.timestamps, fleet.sidekiq_metrics]
      Deckhand::SidekiqHarness.server(queues: ["sidekiq-only"]) do
        wait_for(message: "the Sidekiq process record") { Sidekiq::ProcessSet.new.any? { |process| process["version"] == Sidekiq::VERSION } }
        major = Sidekiq::VERSION.to_i
        wait_for(timeout: PROMPTLY, message: "Sidekiq #{major}'s metrics layout alone, at the next heartbeat") { fleet.sidekiq_metrics == [major] }
        assert_equal (major == 7) ? :float : :millis, config.timestamps
        assert_equal (major == 7) ? "ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper" : "Sidekiq::ActiveJob::Wrapper",
          fleet.active_job_class
        jid = CompatFlakyJob.set(queue: "unworked").perform_async("stamped", 0)
        stamped = jobs_in("unworked").find { |job| job["jid"] == jid }
        assert_kind_of FLEET_TIME, stamped["created_at"]
        assert_in_delta 0, Sidekiq::Queue.new("unworked").latency, 60, "Sidekiq reads the job's age right"
      end
      wait_for(timeout: PROMPTLY, message: "both metrics layouts again once Sidekiq left") { fleet.sidekiq_metrics == [7, 8] }
      assert_equal :millis, config.timestamps
      assert_nil fleet.active_job_class
    end
  end
end
