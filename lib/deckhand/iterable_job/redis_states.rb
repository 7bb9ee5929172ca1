# frozen_string_literal: true

require_relative "../store/features/iterations"

module Deckhand
  module IterableJob
    # Where iterable jobs keep their progress: Redis, at `it-<jid>`
    # (Store::Features::Iterations). Deckhand::Testing puts an in-memory keeper with
    # the same methods in its place (IterableJob.states) in fake and inline mode.
    #
    #   states = RedisStates.new(config.store)
    #   states.load(jid)   # => {"ex" => "1", "c" => "40", "rt" => "2.5"}
    class RedisStates # :nodoc:
      def initialize(store)
        @store = store
      end

      def load(jid) = Store::Features::Iterations.load(@store, jid)

      def flush(jid, **progress) = Store::Features::Iterations.flush(@store, jid, **progress)

      def cancel!(jid, now:) = Store::Features::Iterations.cancel!(@store, jid, now: now)

      def delete(jid) = Store::Features::Iterations.delete(@store, jid)
    end
  end
end
