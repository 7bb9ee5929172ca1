# frozen_string_literal: true

require "json"

module Deckhand
  class API
    # One earlier run of an iterable job, as it ended (IterableJob::History).
    #
    #   run = api.iterations([jid])[jid].runs.last
    #   run.reason   # => "shutdown", "time_budget" or "error"
    #   run.error    # => "ActiveRecord::Deadlocked" for an error, else nil
    #   run.cursor   # => 4000, where the next run resumes
    class IterationRun
      attr_reader :number, :started_at, :ended_at, :reason, :error, :steps, :cursor

      def initialize(fields)
        @number = fields["run"].to_i
        @started_at = time(fields["start"])
        @ended_at = time(fields["end"])
        @reason = fields["reason"].to_s
        @error = fields["error"]&.to_s
        @steps = fields["steps"].to_i
        @cursor = parse(fields["cursor"])
      end

      def to_h = {"run" => number, "started_at" => started_at, "ended_at" => ended_at,
                  "reason" => reason, "error" => error, "steps" => steps, "cursor" => cursor}

      private

      def time(value) = value.is_a?(Numeric) ? Time.at(value) : nil

      # The cursor's JSON, cut short when long: its text then.
      def parse(raw)
        raw.is_a?(String) ? JSON.parse(raw) : nil
      rescue JSON::ParserError
        raw
      end
    end
  end
end
