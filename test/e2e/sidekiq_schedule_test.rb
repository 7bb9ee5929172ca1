# frozen_string_literal: true

require_relative "e2e_helper"

# A config/sidekiq.yml with sidekiq-scheduler's `:scheduler: :schedule:`,
# given to the real `deckhand -C`: its entries tick as periodic jobs. The
# queue "ticks" is not worked: it is the ledger of the ticks enqueued.
class SidekiqScheduleE2ETest < Minitest::Test
  include Deckhand::E2EHelpers

  def test_deckhand_runs_a_sidekiq_scheduler_schedule_from_sidekiq_yml
    config = config_file(<<~YAML)
      :concurrency: 1
      :queues: [default]
      :scheduler:
        :schedule:
          tick:
            :every: "1s"
            :class: E2E::CountJob
            :queue: ticks
            :args: [1]
            :retry: 0
    YAML
    cli = boot("-C", config)
    wait_for(timeout: 60, message: "2 ticks") { jobs_in("ticks").size >= 2 }
    cli.signal("TERM")
    assert_equal 0, cli.wait_exit(timeout: 30).exitstatus
    job = jobs_in("ticks").first
    assert_equal ["E2E::CountJob", [1], 0], job.values_at("class", "args", "retry")
  end
end
