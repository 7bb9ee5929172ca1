# frozen_string_literal: true

require_relative "inflight/lot_bits"

module Deckhand
  class Store
    # Reads a process's in-flight record: per queue, the lots it took (see
    # Store::Inflight::LotBits) less the jobs already settled, plus its landing list.
    #
    #   Inflight.lots(store, identity, %w[default mail])       # => [["default", ["3", "4"]], ["mail", []]]
    #   Inflight.payloads(store, identity, %w[default mail])   # => {"default" => ["{...}"], "mail" => []}
    #   Inflight.count(store, identity, %w[default])           # => 1
    module Inflight # :nodoc:
      module_function

      # [queue, lot ids], per queue, the ids in the order the lots were taken.
      def lots(store, identity, queues)
        fields = store.pipelined { |pipe| queues.each { |q| pipe.call("HKEYS", store.layout.inflight(identity, q)) } }
        queues.zip(fields.map { |list| LotBits.ids(list) })
      end

      # queue => the unsettled payloads, in the order they were taken.
      def payloads(store, identity, queues)
        hashes = store.pipelined do |pipe|
          queues.each do |q|
            pipe.call("HGETALL", store.layout.inflight(identity, q))
            pipe.call("LRANGE", store.layout.landing(identity, q), 0, -1)
          end
        end
        queues.each_with_index.to_h do |queue, i|
          hash = hashes[2 * i]
          ids = LotBits.ids(hash.keys)
          lists = ids.empty? ? [] : store.pipelined { |pipe| ids.each { |id| pipe.call("LRANGE", store.layout.lot(identity, queue, id), 0, -1) } }
          unsettled = ids.zip(lists).flat_map do |id, list|
            list.each_with_index.reject { |_, position| LotBits.settled?(hash["#{id}~"], position) }.map(&:first)
          end
          [queue, unsettled + hashes[(2 * i) + 1].reverse]
        end
      end

      def count(store, identity, queues) = payloads(store, identity, queues).sum { |_, list| list.size }
    end
  end
end
