# frozen_string_literal: true

require_relative "lot"

module Deckhand
  class Store
    # Reads a process's in-flight record: per queue, the lots it took (see
    # Store::Lot) less the jobs already settled, plus its landing list.
    #
    #   Inflight.payloads(store, identity, %w[default mail])   # => {"default" => ["{...}"], "mail" => []}
    #   Inflight.count(store, identity, %w[default])           # => 1
    module Inflight
      module_function

      # queue => the unsettled payloads, in the order they were taken.
      def payloads(store, identity, queues)
        replies = store.pipelined do |pipe|
          queues.each do |q|
            pipe.call("HGETALL", store.keys.inflight(identity, q))
            pipe.call("LRANGE", store.keys.landing(identity, q), 0, -1)
          end
        end
        queues.each_with_index.to_h do |queue, i|
          [queue, unsettled(replies[2 * i]) + replies[(2 * i) + 1].reverse]
        end
      end

      def count(store, identity, queues) = payloads(store, identity, queues).sum { |_, list| list.size }

      def unsettled(hash)
        ids = hash.keys.grep(/\A\d+\z/).sort_by(&:to_i)
        ids.flat_map do |id|
          bits = hash["#{id}~"]
          Lot.decode(hash[id]).each_with_index.reject { |_, p| Lot.settled?(bits, p) }.map(&:first)
        end
      end
    end
  end
end
