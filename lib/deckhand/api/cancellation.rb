# frozen_string_literal: true

require_relative "../store/jobs/cancellations"

module Deckhand
  class API
    # What became of a cancelled job (Client.cancel, docs/cancelling.md),
    # kept for a day: where it was when it was cancelled (queue, schedule,
    # retry, dead, held (a job of a paused class held aside), or running:
    # then written once its process stopped it).
    #
    #   api.cancel(jid)                 # => :removed_from_queue
    #   record = api.cancellation(jid)
    #   record.where                    # => "queue"
    #   record.job_class                # => "ReportJob"
    #   record.at                       # => 2026-11-29 08:12:03 UTC
    class Cancellation
      attr_reader :jid, :job_class, :queue, :where, :at

      # The record of the job's cancellation, or nil.
      def self.find(config, jid)
        record = Store::Jobs::Cancellations.read(config.store, jid) or return nil
        new(record)
      end

      def initialize(record)
        @jid = record["jid"].to_s
        @job_class = record["class"].to_s
        @queue = record["queue"].to_s
        @where = record["where"].to_s
        @at = record["at"].is_a?(Numeric) ? Time.at(record["at"]).utc : nil
      end
    end
  end
end
