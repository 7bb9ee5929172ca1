# frozen_string_literal: true

require_relative "../layout/plain_batches"

module Deckhand
  class Store # :nodoc:
    module Features
      # Reads of batch state (the layout is in Layout::PlainBatches, Layout::ClusterBatches in
      # cluster mode, where a batch's keys share one slot; every change goes
      # through Scripts::BatchOps). Each read is bounded, however many jobs a
      # batch has, except `states` without summary, which reads a batch whole.
      #
      #   BatchRecords.count(store)                                 # => 42
      #   BatchRecords.newest(store, 0, 25)                         # => [bid, ...] newest first
      #   BatchRecords.states(store, [bid], summary: true)          # => [[fields, pending, failing, dead, kids]]
      #   BatchRecords.failures(store, bid, cursor: 0, count: 25)   # => [next cursor or nil, [[jid, json, dead], ...]]
      #   BatchRecords.children(store, bid, limit: 100)             # => [bid, ...]
      module BatchRecords # :nodoc:
        module_function

        # Batches whose data has not expired (the index may lag by a few).
        def count(store) = store.call("ZCARD", store.layout.batches::INDEX)

        def newest(store, offset, limit)
          return [] if limit <= 0
          store.call("ZRANGE", store.layout.batches::INDEX, offset, offset + limit - 1, "REV")
        end

        # One round trip: for each bid, [hash fields, pending count, failing,
        # dead, kids]. The last three are counts with summary: true, else the
        # failing jids' errors (a Hash), the dead jids and the child bids.
        def states(store, bids, summary: false)
          return [] if bids.empty?
          keys = store.layout.batches
          replies = store.pipelined do |pipe|
            bids.each do |bid|
              pipe.call("HGETALL", keys.batch(bid))
              pipe.call("SCARD", keys.jids(bid))
              if summary
                pipe.call("HLEN", keys.failed(bid))
                pipe.call("SCARD", keys.dead(bid))
                pipe.call("SCARD", keys.kids(bid))
              else
                pipe.call("HGETALL", keys.failed(bid))
                pipe.call("SMEMBERS", keys.dead(bid))
                pipe.call("SMEMBERS", keys.kids(bid))
              end
            end
          end
          replies.each_slice(5).to_a
        end

        # About `count` failing jobs from `cursor` (0: the start), in Redis's
        # order: [next cursor, or nil at the end, [[jid, error JSON, dead?], ...]].
        def failures(store, bid, cursor:, count:)
          keys = store.layout.batches
          cursor, flat = store.call("HSCAN", keys.failed(bid), cursor, "COUNT", count)
          pairs = flat.each_slice(2).to_a
          dead = pairs.empty? ? [] : store.call("SMISMEMBER", keys.dead(bid), *pairs.map(&:first))
          found = pairs.each_with_index.map { |(jid, raw), i| [jid, raw, dead[i] == 1] }
          [(cursor.to_s == "0") ? nil : Integer(cursor), found]
        end

        # Up to about `limit` child bids: one SSCAN stretch.
        def children(store, bid, limit:)
          _cursor, bids = store.call("SSCAN", store.layout.batches.kids(bid), 0, "COUNT", limit)
          bids.first(limit)
        end
      end
    end
  end
end
