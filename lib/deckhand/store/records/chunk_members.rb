# frozen_string_literal: true

module Deckhand
  class Store
    module Records
      # Every member of the chunks a server process runs (docs/chunks.md), in
      # one set per process, so Client.cancel finds a running member however
      # large its chunk: the process record's work entry lists a chunk's first
      # ProcessRecord::CHUNK_JIDS only, since the heartbeat rewrites it whole
      # at every beat. The set is written by changes instead, a chunk's
      # members when it starts and gone when it ends (a beat with no chunk
      # starting or ending writes nothing but its TTL), and expires with the
      # process record.
      #
      #   ChunkMembers.write(pipe, store.layout, identity, added: jids, removed: [], fresh: false, ttl: 40)
      #   ChunkMembers.holder(store, identities, jid)   # => "host:123:9f3a" or nil
      module ChunkMembers # :nodoc:
        module_function

        # Queues a change on the heartbeat's pipeline. fresh: what the set
        # holds is unknown (a beat failed), so it is written anew: emptied,
        # then given `added` (all the members running now).
        def write(pipe, layout, identity, added:, removed:, fresh:, ttl:)
          key = layout.chunk_members(identity)
          pipe.call("UNLINK", key) if fresh
          pipe.call("SREM", key, *removed) unless fresh || removed.empty?
          pipe.call("SADD", key, *added) unless added.empty?
          pipe.call("EXPIRE", key, ttl)
        end

        # The first of `identities` whose set holds `jid`, or nil: one round trip.
        def holder(store, identities, jid)
          return nil if identities.empty?
          replies = store.pipelined do |pipe|
            identities.each { |identity| pipe.call("SISMEMBER", store.layout.chunk_members(identity), jid) }
          end
          identities.zip(replies).find { |_, member| member == 1 }&.first
        end

        # Queues the set's removal (a clean shutdown).
        def forget(pipe, layout, identity) = pipe.call("UNLINK", layout.chunk_members(identity))
      end
    end
  end
end
