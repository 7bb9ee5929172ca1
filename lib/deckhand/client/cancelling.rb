# frozen_string_literal: true

module Deckhand
  class Client
    # Cancels jobs by their jid (docs/cancelling.md): on the class, with the
    # default configuration, or on a client, with its own (`pool:` included).
    #
    #   jid = ReportJob.perform_in(3600, 42)
    #   Deckhand::Client.cancel(jid)                      # => :removed_from_schedule
    #   Deckhand::Client.new(pool: EU_REDIS).cancel(jid)  # a job on another Redis
    module Cancelling
      # Cancels any job by its jid, wherever it is, and says what happened:
      # :removed_from_queue, :removed_from_schedule, :removed_from_retries or
      # :removed_from_dead (it never runs), :cancelling_running (its process
      # sees the cancel with its next heartbeat; the job reads cancelled? and
      # stops, or is interrupted after `grace` seconds, the server's
      # cancel_grace by default), or :not_found.
      #
      # @return [Symbol]
      def cancel(jid, grace: nil) = JobCancel.new(config).call(jid, grace: grace)

      # Cancels an iterable job (Deckhand::IterableJob): it stops at its next
      # check and ends without error. Returns when it was first cancelled.
      def cancel!(jid) = IterableJob.cancel!(jid, config: config)

      # Client.cancel and Client.cancel!, with the default configuration.
      module ClassSide
        # As Cancelling#cancel, on a new client.
        def cancel(jid, grace: nil) = new.cancel(jid, grace: grace)

        # As Cancelling#cancel!, on a new client.
        def cancel!(jid) = new.cancel!(jid)
      end
    end
  end
end
