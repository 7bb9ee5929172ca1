# frozen_string_literal: true

module Deckhand
  class API
    # The numbers at the top of the dashboard, read in two round trips.
    #
    #   stats = api.stats
    #   stats.processed   # => 1_204_113 (all time)
    #   stats.enqueued    # => jobs waiting in all queues
    #   stats.to_h        # => for JSON
    class Stats
      FIELDS = %i[processed failed enqueued busy processes scheduled retries dead].freeze

      attr_reader(*FIELDS)

      def initialize(config)
        store = config.store
        processed, failed, @scheduled, @retries, @dead, identities, queues = store.pipelined do |pipe|
          pipe.call("GET", Store::Keys::PROCESSED)
          pipe.call("GET", Store::Keys::FAILED)
          pipe.call("ZCARD", Store::Keys::SCHEDULE)
          pipe.call("ZCARD", Store::Keys::RETRY)
          pipe.call("ZCARD", Store::Keys::DEAD)
          pipe.call("SMEMBERS", Store::Keys::PROCESSES)
          pipe.call("SMEMBERS", Store::Keys::QUEUES)
        end
        @processed = processed.to_i
        @failed = failed.to_i
        @processes = identities.size
        count(store, identities, queues)
      end

      def to_h = FIELDS.to_h { |field| [field, public_send(field)] }

      private

      def count(store, identities, queues)
        replies = store.pipelined do |pipe|
          identities.each { |identity| pipe.call("HGET", Store::Keys.process(identity), "busy") }
          queues.each { |name| pipe.call("LLEN", Store::Keys.queue(name)) }
        end
        @busy = replies.first(identities.size).sum(&:to_i)
        @enqueued = replies.drop(identities.size).sum(&:to_i)
      end
    end
  end
end
