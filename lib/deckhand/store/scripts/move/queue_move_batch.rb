# frozen_string_literal: true

require "securerandom"
require_relative "move_take"
require_relative "move_put"
require_relative "move_fair_take"
require_relative "move_fair_put"

module Deckhand
  class Store
    module Scripts
      # A queue move's batches (Store::Tags::QueueMove): MoveTake holds a batch in
      # the old tag's slot as it leaves its list or set, MovePut writes it
      # under the new tag once (a marker of its id), then the held batch is
      # released. A mover that dies anywhere in
      # between leaves the batch held; the next run puts it (or finds it
      # put) and releases it: each job lands once.
      #
      # The held batch is kept beside its source (`<source>:moving:batch`
      # and `:id`), so a batch held from the retry set goes back to a retry
      # set. The marker (`<destination>:moved:<id>`) outlives the batch
      # (MARKER_TTL): a second mover that read the same held batch before
      # the first released it finds the marker and writes nothing.
      #
      #   batch = QueueMoveBatch.new(store)
      #   batch.call("{queue:mail}", "{queue~2:mail}", kind: "list", limit: 500)   # => 500 (moved; 0 when empty)
      #   batch.call("{queue:mail}:retry", "{queue~2:mail}:retry", kind: "zset", limit: 500)
      #   batch.call("{queue:mail}", "{queue~2:mail}", kind: "fair", limit: 500)   # a fair queue's tenants' jobs
      #
      # A fair queue's tenants' jobs (kind "fair": source and destination
      # are the queue's tags) move with their tenants' counts, each keeping
      # its lead over the queue's virtual time (MoveFairTake, MoveFairPut).
      class QueueMoveBatch # :nodoc:
        # Seconds a batch's marker lives: far longer than any mover takes
        # between reading a held batch and writing it.
        MARKER_TTL = 24 * 60 * 60

        def initialize(store)
          @store = store
          @take = MoveTake.new(store)
          @put = MovePut.new(store)
          @fair_take = MoveFairTake.new(store)
          @fair_put = MoveFairPut.new(store)
        end

        # Moves one batch of up to `limit` from `source` to `destination`
        # (both lists, both sorted sets, or both a fair queue's tags:
        # `kind`). Returns how many it moved, counting a batch a dead mover
        # had held (0: nothing left).
        def call(source, destination, kind:, limit:)
          return fair(source, destination, limit) if kind == "fair"
          id, *items = @take.call(source, kind, limit, SecureRandom.hex(8))
          return 0 if id.nil?
          @put.call(destination, Layout::TagNames.moved_marker(destination, id), kind, items, MARKER_TTL)
          release(source)
          (kind == "list") ? items.size : items.size / 2
        end

        private

        def fair(source, destination, limit)
          id, vt, *items = @fair_take.call(source, limit, SecureRandom.hex(8))
          return 0 if id.nil?
          @fair_put.call(destination, Layout::TagNames.moved_marker(destination, id), vt, items, MARKER_TTL)
          release(Layout::TagNames.fair_jobs(source))
          items.size / 2
        end

        def release(source) = @store.call("UNLINK", Layout::TagNames.held_batch(source), Layout::TagNames.held_batch_id(source))
      end
    end
  end
end
