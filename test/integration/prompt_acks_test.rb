# frozen_string_literal: true

require "test_helper"

# Acknowledgements do not wait for the next fetch: a job that finished while
# the capsule holds plenty of fetched jobs (so no fetch goes out) is told to
# Redis within the fetch window all the same. A SIGKILL then re-runs only
# what had not finished.
class PromptAcksTest < Minitest::Test
  class HoldJob
    include Deckhand::Job

    GATE = Queue.new

    def perform = GATE.pop
  end

  def setup
    super
    HoldJob::GATE.clear
  end

  def test_a_finished_job_is_acknowledged_while_the_capsule_holds_a_full_buffer
    Deckhand.config = new_config(concurrency: 1, prefetch: 10, timeout: 1)
    fast = RecordJob.perform_async("fast")
    HoldJob.perform_async
    fillers = Array.new(9) { |i| RecordJob.perform_async("filler #{i}") }
    with_server do |launcher|
      wait_for(message: "the hold job running") { HoldJob::GATE.num_waiting == 1 }
      jids = -> { inflight_payloads(launcher.identity).map { |raw| JSON.parse(raw)["jid"] } }
      assert_includes jids.call, fillers.last, "the fillers wait in the buffer: no fetch needed"
      wait_for(message: "the fast job acknowledged") { !jids.call.include?(fast) }
      HoldJob::GATE << :go
      wait_for(message: "every job done") { Deckhand::TestJobs.runs.size == 10 }
    end
  end

  # Fails the fetch script's next call that carries news of settled jobs,
  # with an error that is not Redis'.
  module FailOnce
    attr_accessor :fail_next

    def call(acks:, landed: [], **)
      if fail_next && (acks.any? || landed.any?)
        self.fail_next = false
        raise ArgumentError, "a bug on the fetch path"
      end
      super
    end
  end

  def test_a_round_that_raises_keeps_the_acknowledgements_it_carried
    log = StringIO.new
    Deckhand.config = new_config(concurrency: 1, timeout: 1)
    Deckhand.config.logger = Logger.new(log)
    with_server do |launcher|
      fetch = launcher.capsules.first.fetcher.instance_variable_get(:@fetch)
      fetch.extend(FailOnce)
      fetch.fail_next = true
      jid = RecordJob.perform_async("first")
      wait_for(message: "the failing round") { log.string.include?("a bug on the fetch path") }
      wait_for(message: "the job acknowledged after all") { !inflight_payloads(launcher.identity).join.include?(jid) }
      RecordJob.perform_async("second")
      wait_for(message: "the loop running again") { Deckhand::TestJobs.runs.size == 2 }
    end
    assert_equal 1, Deckhand::TestJobs.runs.count { |_, args| args == ["first"] }
  end
end
