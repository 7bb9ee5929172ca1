# frozen_string_literal: true

require_relative "../../support/iterable/iterable_helper"
require_relative "../../support/batch/batch_helper"

# An iterable job in a batch: its interruptions are neither failures nor
# successes; the batch succeeds once, when the job completes.
class IterableBatchTest < Minitest::Test
  include Deckhand::BatchHelpers
  include IterableTestSetup

  def test_an_interrupted_job_counts_once_when_it_completes
    config = server_config(concurrency: 2)
    batch = Deckhand::Batch.new
    %i[success complete death].each { |event| batch.on(event, BatchApp::Callbacks) }
    batch.jobs { IterableJobs::BudgetJob.perform_async(30) } # 0.6 s of steps, 0.2 s per run
    with_server(config) do
      wait_for_callbacks(1, event: "success")
      wait_for(message: "the job to complete") { IterableJobs.callbacks.include?("complete") }
    end
    assert_operator IterableJobs.callbacks.count("resume"), :>=, 1, "interrupted at least once"
    assert_equal (0...30).to_a, IterableJobs.ledger
    assert_equal %w[complete success], callbacks.map { |c| c["event"] }.sort
    assert_equal [0, 0], callbacks("success").first.values_at("pending", "failures")
    assert_equal [0, 0], callbacks("complete").first.values_at("pending", "failures"), "complete fired only when the job completed"
    assert_empty batch.status.failed_jids
  end
end
