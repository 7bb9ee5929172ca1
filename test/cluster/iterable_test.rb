# frozen_string_literal: true

require_relative "../support/iterable/iterable_helper"
require "support/cluster_helpers"

# Iterable jobs in cluster mode: a job that runs out of its time budget is put
# back through its queue's scheduled set, its progress kept in its it-<jid>
# hash, and resumes where it stopped until it completes; a cancelled job ends at once.
class ClusterIterableTest < Minitest::Test
  include IterableTestSetup
  include Deckhand::ClusterHelpers

  def setup
    super
    IterableJobs.call("DEL", IterableJobs::LEDGER, IterableJobs::CALLBACKS, IterableJobs::GATE)
  end

  def test_a_job_out_of_its_time_budget_resumes_where_it_stopped
    jid = IterableJobs::BudgetJob.set(queue: "mail").perform_async(30)
    with_server(iterable_config(queues: %w[mail])) do
      wait_for(message: "every item") { IterableJobs.ledger.size == 30 }
      wait_for(message: "the progress forgotten once complete") { cluster.call("EXISTS", keys.iteration(jid)).zero? }
    end
    assert_equal (0...30).to_a, IterableJobs.ledger, "each item once, in order, across runs"
    assert_operator IterableJobs.callbacks.count("resume"), :>=, 1, "a 0.2 s budget for 0.6 s of steps must resume"
    assert_equal 1, IterableJobs.callbacks.count("complete")
  end

  def test_a_job_cancelled_before_it_runs_ends_with_on_cancel
    jid = IterableJobs::CountJob.set(queue: "mail").perform_async(5)
    assert_kind_of Integer, Deckhand::Client.cancel!(jid)
    with_server(iterable_config(queues: %w[mail])) do
      wait_for(message: "on_cancel") { IterableJobs.callbacks.include?("cancel") }
    end
    assert_empty IterableJobs.ledger
    assert_equal ["cancel"], IterableJobs.callbacks
    assert_equal 0, cluster.call("EXISTS", keys.iteration(jid))
    assert_equal [0, 0, 0], [keys.retry_set("mail"), keys.dead_set("mail"), keys.scheduled_set("mail")].map { |set| cluster.call("ZCARD", set) }
  end
end
