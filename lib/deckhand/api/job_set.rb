# frozen_string_literal: true

require_relative "set_entry"
require_relative "job_set_search"
require_relative "job_set_actions"
require_relative "../store/sets/shards"

module Deckhand
  class API
    # The schedule, retry or dead set: paged, searched and acted on a bounded
    # slice at a time, whatever its size.
    #
    #   retries = api.retries
    #   retries.size                                  # => 100_000
    #   retries.page(1, 25)                           # => [SetEntry, ...] soonest first
    #   entries, resume_at = retries.filter("Timeout::Error")
    #   retries.retry(entries)                        # back to their queues now
    #   api.dead.delete_all
    #
    # In cluster mode the set is sharded per queue (Store::Sets::Shards): pages
    # merge the shards in score order, each entry remembers its shard, and an
    # entry of queue q's shard goes back to q (or to q's dead set).
    # Searches are JobSetSearch's, writes JobSetActions'.
    #
    # A String names a sorted set a plugin keeps jobs in (sidekiq-failures'
    # "failed"), one key in either mode, lowest score first: read, searched,
    # deleted, retried and killed as the others. In cluster mode its key is
    # in a slot of its own, so retrying or killing its entries raises.
    #
    #   failed = api.job_set("failed")
    #   failed.each_entry { |entry| puts entry.jid }
    class JobSet
      include JobSetSearch
      include JobSetActions

      SETS = {scheduled: false, retries: false, dead: true}.freeze # dead: newest death first
      # Entries acted on per round trip.
      BATCH = 500
      # Entries a filter reads inside Redis per call; it returns where to resume.
      SCAN_BUDGET = 10_000
      # Entries counted per round trip.
      COUNT_STEP = 50_000
      # Entries read per call to group them by class or error.
      GROUP_BUDGET = 10_000

      attr_reader :name

      def initialize(name, config)
        @reverse = SETS.fetch(name) do
          unless name.is_a?(String) && !name.empty?
            raise ArgumentError, "no job set #{name.inspect}: give one of #{SETS.keys.join(", ")}, or a sorted set's name (a String)"
          end
          false
        end
        @name = name
        @config = config
        @store = config.store
        @shards = Store::Sets::Shards.new(@store, name)
      end

      # The sorted set's key ("retry"); nil in cluster mode, where the set is
      # one sorted set per queue.
      def key = @shards.per_queue? ? nil : @shards.key(nil)

      # How many entries the set holds.
      def size = @shards.size

      # Deletes every entry (#delete_all).
      def clear = delete_all

      # Entries of one page (1-based), in the set's order. In cluster mode
      # the page finds where it starts in each queue's shard in a few round
      # trips, then reads a page's worth of each from there: about as cheap
      # in the middle of the set as at either end.
      def page(number, per_page)
        offset = (number - 1) * per_page
        @shards.page(offset, per_page, reverse: @reverse)
          .each_with_index.map { |(shard, raw, score), i| SetEntry.new(raw, score, rank: offset + i, shard: shard) }
      end

      # Every entry in the set's order, BATCH at a time from each shard, each
      # read once (in cluster mode the shards merged as they are read).
      #
      #   api.retries.each_entry { |entry| puts entry.jid }
      # reverse: true walks from the highest score, false from the lowest,
      # whatever the set's own order.
      def each_entry(reverse: @reverse)
        return enum_for(:each_entry, reverse: reverse) unless block_given?
        rank = 0
        @shards.each_entry(reverse: reverse, batch: BATCH) do |shard, raw, score|
          yield SetEntry.new(raw, score, rank: rank, shard: shard)
          rank += 1
        end
      end

      # The entry with this key ("<score>-<jid>"), or nil when it has gone.
      def fetch(key)
        parsed = SetEntry.parse_key(key) or return nil
        score, ident = parsed
        @shards.at_score(score).each do |shard, raw|
          entry = SetEntry.new(raw, score, shard: shard)
          return entry if entry.ident == ident
        end
        nil
      end

      # The entries scored from min to max (epoch seconds), lowest first.
      def in_scores(min, max)
        @shards.in_scores(min, max).sort_by { |_, _, score| score }.map { |shard, raw, score| SetEntry.new(raw, score, shard: shard) }
      end

      private

      # The shard an entry came from; for one built elsewhere, its queue's.
      def shard_of(entry)
        return nil unless @shards.per_queue?
        entry.shard || entry.queue
      end
    end
  end
end
