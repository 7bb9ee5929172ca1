# frozen_string_literal: true

require "json"

module Deckhand
  module IterableJob
    # The last runs of an iterable job, each as it ended: kept in its
    # `it-<jid>` hash (field "dh_runs", Deckhand's own) so the dashboard can
    # show why and where it was interrupted. Written by the save that ends a
    # run, never by a step; capped at LIMIT runs, the oldest dropped.
    #
    #   history = RunHistory.parse(saved["dh_runs"])
    #   history.ended(run: 2, started_at: t0, reason: "shutdown", steps: 40, cursor: "41")
    #   history.to_json # => '[{"run":1,...},{"run":2,"reason":"shutdown",...}]'
    #
    # Reasons: "shutdown" (the server stopping, between steps or cutting a
    # step short), "interrupted" (the job's interrupted? said so),
    # "time_budget" (max_iteration_runtime), "error" (with
    # "error", the exception's class). A completed or cancelled job's state,
    # history included, is deleted, as in Sidekiq.
    class RunHistory # :nodoc:
      LIMIT = 20
      CURSOR_LIMIT = 200 # characters of the cursor's JSON kept per run
      REASONS = %w[shutdown interrupted time_budget error].freeze

      # What Redis holds, or nil; anything unreadable counts as no history.
      def self.parse(raw)
        runs = (raw.nil? || raw.empty?) ? [] : JSON.parse(raw)
        new(runs.is_a?(Array) ? runs.grep(Hash) : [])
      rescue JSON::ParserError
        new([])
      end

      attr_reader :runs

      def initialize(runs)
        @earlier = runs.last(LIMIT)
        @runs = @earlier
      end

      # Records how this run ended; called again in the same run, it replaces it.
      def ended(run:, started_at:, reason:, steps:, cursor:, error: nil)
        raise ArgumentError, "reason must be one of #{REASONS.join(", ")}, got #{reason.inspect}" unless REASONS.include?(reason)
        entry = {"run" => run, "start" => started_at.round(3), "end" => Time.now.to_f.round(3), "reason" => reason}
        entry["error"] = error if error
        entry["steps"] = steps
        entry["cursor"] = cursor[0, CURSOR_LIMIT]
        @runs = (@earlier + [entry]).last(LIMIT)
      end

      def to_json(*) = JSON.generate(@runs)
    end
  end
end
