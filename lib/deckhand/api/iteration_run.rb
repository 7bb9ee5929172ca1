# frozen_string_literal: true

require "json"

module Deckhand
  class API
    # One earlier run of an iterable job, as it ended (IterableJob::RunHistory).
    #
    #   run = api.iterations([jid])[jid].runs.last
    #   run.reason   # => "shutdown", "time_budget" or "error"
    #   run.error    # => "ActiveRecord::Deadlocked" for an error, else nil
    #   run.cursor   # => 4000, where the next run resumes
    #   run.cursor_json # => "4000" (cut short at 200 characters; `cursor` is then that text)
    class IterationRun
      attr_reader :number, :started_at, :ended_at, :reason, :error, :steps, :cursor, :cursor_json

      # A saved cursor: its JSON parsed, or the text itself when it is not
      # JSON (a cursor cut short in a run's history, or written by hand).
      def self.cursor(json)
        JSON.parse(json)
      rescue JSON::ParserError
        json
      end

      def initialize(fields)
        @number = int(fields["run"])
        @started_at = time(fields["start"])
        @ended_at = time(fields["end"])
        @reason = fields["reason"].to_s
        @error = fields["error"]&.to_s
        @steps = int(fields["steps"])
        @cursor_json = fields["cursor"].is_a?(String) ? fields["cursor"] : "null"
        @cursor = IterationRun.cursor(@cursor_json)
      end

      private

      # What Redis holds is read, never trusted: a field of the wrong type reads as nothing.
      def int(value) = value.is_a?(Numeric) ? value.to_i : 0

      def time(value) = value.is_a?(Numeric) ? Time.at(value) : nil
    end
  end
end
