# frozen_string_literal: true

require_relative "../../store/features/iterations"

module Sidekiq
  # The saved progress of iterable jobs, many at once (Sidekiq 8's
  # IterableJobQuery, as its Busy page reads it): from the `it-<jid>`
  # hashes Deckhand and Sidekiq both write, in one round trip.
  #
  #   query = Sidekiq::IterableJobQuery.new(jids)
  #   state = query[jid]      # nil for a job with no saved progress
  #   state.executions        # => 3
  #   state.cursor            # => {"offset" => 100} (the raw String if not JSON)
  #   state.cancelled         # => when it was cancelled (epoch seconds), or nil
  class IterableJobQuery
    def initialize(jids)
      raise ArgumentError, "Sidekiq::IterableJobQuery.new takes the jids to look up, got nil" if jids.nil?
      wanted = Array(jids).compact.uniq
      found = Deckhand::Store::Features::Iterations.load_many(Deckhand.config.store, wanted)
      @states = wanted.zip(found).each_with_object({}) do |(jid, fields), states|
        states[jid] = State.new(jid, fields) unless fields.nil? || fields.empty?
      end
    end

    def [](jid) = @states[jid]

    # One job's progress, read from its hash's fields.
    State = Struct.new(:jid, :raw) do
      def executions = raw["ex"].to_i

      def runtime = raw["rt"].to_f

      def cursor
        @cursor ||= begin
          JSON.parse(raw["c"])
        rescue JSON::ParserError, TypeError
          raw["c"]
        end
      end

      def cancelled = raw["cancelled"]&.to_i
    end
  end
end
