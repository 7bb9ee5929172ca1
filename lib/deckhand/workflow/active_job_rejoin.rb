# frozen_string_literal: true

module Deckhand
  class Workflow
    # While an Active Job step runs: Active Job may enqueue the same job
    # again (retry_on, a continuation stopped by a shutdown) as a new push.
    # Deckhand's adapter hands that push here (KEY), and it keeps the
    # step's jid and workflow, so it is the same step run again, not a job
    # outside the workflow; the run that enqueued it then ends as failing
    # and will run again (StepMiddleware), releasing nothing.
    #
    #   ActiveJobRejoin.around(payload) { perform }   # => [perform's value, whether it was enqueued again]
    class ActiveJobRejoin
      # The fiber-local key the adapter reads (ActiveJob::QueueAdapters::DeckhandAdapter#push).
      KEY = :deckhand_workflow_active_job_step

      def self.around(payload)
        data = payload["args"]&.first
        job_id = data.is_a?(Hash) ? data["job_id"] : nil
        return [yield, false] unless job_id
        rejoin = new(payload["wf"], payload["jid"], job_id)
        previous = Thread.current[KEY]
        Thread.current[KEY] = rejoin
        begin
          [yield, rejoin.rejoined?]
        ensure
          Thread.current[KEY] = previous
        end
      end

      def initialize(wid, jid, job_id)
        @wid = wid
        @jid = jid
        @job_id = job_id
        @rejoined = false
      end

      def rejoined? = @rejoined

      # The adapter's push `item` of `job` (an Active Job instance): the
      # step's own job, enqueued again, keeps the step's jid and workflow.
      def rejoin(job, item)
        return item unless job.job_id == @job_id
        @rejoined = true
        item.merge("jid" => @jid, "wf" => @wid)
      end
    end
  end
end
