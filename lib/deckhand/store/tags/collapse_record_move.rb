# frozen_string_literal: true

require_relative "../scripts/move/move_collapse_put"
require_relative "../scripts/move/move_collapse_drop"

module Deckhand
  class Store
    module Tags
      # The records of a queue's debounced and deduplicated keys
      # (Deckhand::Collapsing), carried by a queue move (QueueMove) to the
      # queue's new tag after its scheduled set: the record names the job
      # the key's last push left waiting, so a push of the key after the move
      # still replaces it (debounce, dedupe's :replace) or is kept out
      # (:keep, :extend), as the levels' set and the held sets are carried
      # for the servers to find.
      #
      # No set names a queue's records (a push would pay for one), so the
      # move looks for them: a SCAN of the cluster for the old tag's
      # records, in batches of BATCH, each batch read in one round trip,
      # written under the new tag in one (Scripts::MoveCollapsePut: a record
      # a push already wrote there is settled with, the debounced job due
      # last staying), then removed from the old tag in one
      # (Scripts::MoveCollapseDrop: unless a push named another job since,
      # which the move's last copy carries). A mover that dies in between
      # leaves a record under both tags; the next run carries it again and
      # finds it there.
      #
      #   CollapseRecordMove.new(store).call("{queue:mail}", "{queue~2:mail}")   # => 12 (records carried)
      class CollapseRecordMove # :nodoc:
        BATCH = 500
        SHAPE = /:(debounce|dedupe):(\h{64})\z/

        def initialize(store)
          @store = store
          @put = Scripts::MoveCollapsePut.new(store)
          @drop = Scripts::MoveCollapseDrop.new(store)
        end

        # Carries every record under `from` to `to`; yields before each
        # batch (the mover prolongs its lock). Returns how many it carried.
        def call(from, to)
          records(from).each_slice(BATCH).sum do |batch|
            yield if block_given?
            carry(batch, to)
          end
        end

        private

        # [[key, mode, digest], ...] of the records under `tag`.
        def records(tag)
          found = @store.with { |conn| conn.scan("MATCH", Layout::TagNames.collapse_pattern(tag), "COUNT", 1000).to_a }
          found.uniq.filter_map do |key|
            _, mode, digest = key.match(SHAPE)&.to_a
            [key, mode, digest] if mode && key == Layout::TagNames.collapse(tag, mode, digest)
          end
        end

        # A key of another type under a record's name (not Deckhand's) is
        # left where it is.
        def carry(batch, to)
          read = @store.pipelined(exception: false) do |pipe|
            batch.each do |key, _, _|
              pipe.call("HMGET", key, "jid", "payload")
              pipe.call("PTTL", key)
            end
          end
          found = batch.zip(read.each_slice(2)).filter_map do |(key, mode, digest), (held, life)|
            jid, payload = held if held.is_a?(Array)
            [key, mode, digest, jid, payload, [life.to_i, 0].max] if jid && payload
          end
          return 0 if found.empty?
          schedule = Layout::TagNames.set(to, "schedule")
          @put.call_many(found.map { |_, mode, digest, jid, payload, life| [Layout::TagNames.collapse(to, mode, digest), schedule, mode, jid, payload, life] })
          @drop.call_many(found.map { |key, _, _, jid, _, _| [key, jid] })
          found.size
        end
      end
    end
  end
end
