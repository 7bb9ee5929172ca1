# frozen_string_literal: true

require "test_helper"

# A quiet process (TSTP) hands back the jobs it fetched but had not started,
# and keeps none: its idle waiters end before the hand-back, so none of them
# takes a handed-back job into its landing list.
class QuietHandBackTest < Minitest::Test
  QUEUES = %w[default mail low].freeze

  class QuietGateJob
    include Deckhand::Job

    GATE = Queue.new

    def perform
      Deckhand::TestJobs.record([jid, "gate"])
      GATE.pop
    end
  end

  def test_a_quiet_process_hands_back_its_unstarted_jobs_and_takes_none_again
    QuietGateJob.perform_async
    QUEUES.each { |queue| Deckhand::Client.push_bulk("class" => "RecordJob", "queue" => queue, "args" => [[queue, 1], [queue, 2]]) }
    with_server(new_config(queues: QUEUES, concurrency: 1, prefetch: 10)) do |launcher|
      wait_for(message: "the gate job") { Deckhand::TestJobs.runs.size == 1 }
      wait_for(message: "the jobs fetched") { launcher.capsules.first.fetcher.outstanding == 7 }
      launcher.quiet
      wait_for(message: "the unstarted jobs back in their queues") { QUEUES.sum { |queue| jobs_in(queue).size } == 6 }
      QUEUES.each { |queue| assert_equal [[queue, 1], [queue, 2]], jobs_in(queue).map { |job| job["args"] }.reverse, queue }
      landed = QUEUES.sum { |queue| redis.call("LLEN", "deckhand:landing:#{launcher.identity}:#{queue}") }
      assert_operator landed, :<=, 1, "only the gate job (if an idle waiter brought it) is in the landing lists"
      QuietGateJob::GATE << :open
    end
    assert_equal 1, Deckhand::TestJobs.runs.size
  ensure
    QuietGateJob::GATE.clear
  end
end
