# frozen_string_literal: true

require "securerandom"
require_relative "queue_placement"
require_relative "scripts/queue_move_batch"

module Deckhand
  class Store
    # Cluster mode: jobs pushed under a tag a queue move retired, by a
    # process that does not follow placement (an earlier Deckhand version,
    # docs/cluster.md "Out-of-date processes"), go to the queue's current
    # tag, list, a fair queue's tenants' jobs and scheduled, retry and dead
    # sets, batch by batch as a move
    # copies them (Scripts::QueueMoveBatch: each job written once). Under the
    # move lock, so one process sweeps at a time and never during a move.
    #
    #   Deckhand::Store::RetiredSweep.new(store).call   # => {"mail" => 3} (jobs and entries moved, by queue)
    class RetiredSweep # :nodoc:
      LOCK_TTL = 60
      SOURCES = [["", "list"], ["", "fair"], [":schedule", "zset"], [":retry", "zset"], [":dead", "zset"]].freeze

      def initialize(store)
        @store = store
      end

      def call
        token = SecureRandom.hex(8)
        return {} unless Moves.lock(@store, token, LOCK_TTL)
        begin
          sweep(Moves.retired(@store))
        ensure
          Moves.unlock(@store, token)
        end
      end

      private

      Moves = QueuePlacement::Moves

      def sweep(retired)
        return {} if retired.empty?
        current = @store.call("HMGET", QueuePlacement::KEY, *retired.values)
        batch = Scripts::QueueMoveBatch.new(@store)
        moved = Hash.new(0)
        retired.zip(current).each do |(tag, queue), now|
          next if now.nil? || now == tag
          SOURCES.each do |suffix, kind|
            while (taken = batch.call("#{tag}#{suffix}", "#{now}#{suffix}", kind: kind, limit: QueueMove::BATCH)).positive?
              moved[queue] += taken
            end
          end
        end
        moved
      end
    end
  end
end
