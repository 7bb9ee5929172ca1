# frozen_string_literal: true

require "json"
require_relative "set_entry"
require_relative "death_notice"
require_relative "set_groups"
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
    class JobSet
      SETS = {scheduled: false, retries: false, dead: true}.freeze # dead: newest death first
      BATCH = 500
      SCAN_BUDGET = 10_000
      COUNT_STEP = 50_000
      GROUP_BUDGET = 10_000

      attr_reader :name

      def initialize(name, config)
        @reverse = SETS.fetch(name) { raise ArgumentError, "no job set #{name.inspect}; one of #{SETS.keys.join(", ")}" }
        @name = name
        @config = config
        @store = config.store
        @shards = Store::Sets::Shards.new(@store, name)
      end

      # The sorted set's key ("retry"); nil in cluster mode, where the set is
      # one sorted set per queue.
      def key = @shards.per_queue? ? nil : @shards.key(nil)

      def size = @shards.size

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
      def each_entry
        return enum_for(:each_entry) unless block_given?
        rank = 0
        @shards.each_entry(reverse: @reverse, batch: BATCH) do |shard, raw, score|
          yield SetEntry.new(raw, score, rank: rank, shard: shard)
          rank += 1
        end
      end

      # Entries containing `text` (case-sensitive), looking at up to `budget`
      # entries from rank `from`. Returns [entries, rank to resume from or nil].
      # In cluster mode ranks count through the queues' shards one after
      # another (by queue name), in the set's order within each.
      def filter(text, from: 0, limit: 25, budget: SCAN_BUDGET)
        next_rank, found = @shards.scan(text, from: from, limit: limit, budget: budget, reverse: @reverse)
        [found.map { |rank, shard, raw, score| SetEntry.new(raw, score, rank: rank, shard: shard) }, next_rank]
      end

      # How many entries contain `text` (as `filter` matches them), counted
      # inside Redis COUNT_STEP entries per call: a number, never the entries.
      def count_matching(text) = @shards.count(needle(text), step: COUNT_STEP)

      # The set counted by error class and job class (SetGroups), inside
      # Redis: the first `budget` entries (in score order), or all with nil.
      def groups(budget: GROUP_BUDGET)
        errors = Hash.new(0)
        classes = Hash.new(0)
        from = 0
        examined = 0
        while from && (budget.nil? || examined < budget)
          step = budget ? [budget - examined, GROUP_BUDGET].min : GROUP_BUDGET
          next_rank, errs, kinds = @shards.groups(from: from, budget: step)
          errs.each { |name, n| errors[name] += n }
          kinds.each { |name, n| classes[name] += n }
          examined += errs.values.sum
          from = next_rank
        end
        SetGroups.new(errors, classes, examined: examined, complete: from.nil?)
      end

      # Retry, delete or kill only the entries that contain `text`, BATCH at a
      # time, each acted on as the exact entry found (never by position).
      # Returns how many were acted on.
      #
      #   api.retries.delete_matching("Net::ReadTimeout")   # => 25
      def retry_matching(text) = each_match(text) { |entries| self.retry(entries) }

      def delete_matching(text) = each_match(text) { |entries| delete(entries) }

      def kill_matching(text) = each_match(text) { |entries| kill(entries) }

      # The entry with this jid, searching the whole set (in bounded steps).
      # Each step stops at the first entry containing the jid, which is nearly
      # always the job itself; one that only mentions it is stepped over.
      def find_jid(jid)
        from = 0
        while from
          found, from = filter(jid, from: from, limit: 1, budget: 50_000)
          match = found.find { |entry| entry.jid == jid }
          return match if match
        end
        nil
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

      # Sends entries to their queues now (in cluster mode, to the queue of
      # the shard each came from). Entries that are not jobs stay. Returns
      # how many were queued.
      def retry(entries)
        moves = by_shard(entries.select { |entry| retryable?(entry) }) do |entry|
          [entry.raw, entry.queue, requeued(entry)]
        end
        @shards.move(moves)
      end

      def delete(entries) = @shards.remove(by_shard(entries, &:raw))

      # Moves entries to the dead set, then tells the config's death handlers
      # (a batch's :death callback among them) about each job this call moved,
      # with a KilledByHand error. Returns how many moved.
      def kill(entries)
        raise ArgumentError, "jobs in the dead set are dead already" if @name == :dead
        groups = entries.group_by { |entry| shard_of(entry) }
        moved = @shards.kill(groups.transform_values { |list| list.map(&:raw) },
          locks: groups.transform_values { |list| list.map { |e| Unique.held_by(e.item, @store.layout) } },
          now: ::Process.clock_gettime(::Process::CLOCK_REALTIME).round(3), max_jobs: @config.dead_max_jobs, timeout: @config.dead_timeout)
        killed = moved.flat_map { |shard, indexes| indexes.map { |i| groups.fetch(shard)[i] } }
        DeathNotice.new(@config, @name).deliver(killed)
        killed.size
      end

      def retry_all = each_batch(->(entry) { !retryable?(entry) }) { |entries| self.retry(entries) }

      def kill_all = each_batch(->(_) { false }) { |entries| kill(entries) }

      def delete_all = @shards.clear

      private

      def retryable?(entry) = !entry.corrupt? && entry.klass && entry.queue && !entry.queue.empty?

      # {shard => [what the block makes of each entry, ...]}.
      def by_shard(entries, &block) = entries.group_by { |entry| shard_of(entry) }.transform_values { |list| list.map(&block) }

      # The shard an entry came from; for one built elsewhere, its queue's.
      def shard_of(entry)
        return nil unless @shards.per_queue?
        entry.shard || entry.queue
      end

      # Sidekiq's rule: a retry started by hand does not use up one of the
      # job's automatic retries.
      def requeued(entry)
        job = entry.item.dup
        job["retry_count"] -= 1 if @name != :scheduled && job["retry_count"].is_a?(Integer)
        job["enqueued_at"] = Payload.now(@config.timestamps)
        JSON.generate(job)
      end

      # Works through the set from its start, BATCH entries at a time, stepping
      # over the entries the block leaves in place (those `stays` picks out).
      # In cluster mode, one shard after another.
      def each_batch(stays)
        done = 0
        @shards.shards.each do |shard, key|
          offset = 0
          loop do
            batch = Store::Sets::OneSet.page(@store, key, offset, BATCH).map { |raw, score| SetEntry.new(raw, score, shard: shard) }
            break if batch.empty?
            done += yield batch
            offset += batch.count(&stays)
          end
        end
        done
      end

      # Scans for matches from the start; what was acted on left the set, so
      # the next scan starts that many ranks earlier. Entries moved by someone
      # else meanwhile can only make it skip a match, never act twice.
      def each_match(text)
        text = needle(text)
        done = 0
        from = 0
        while from
          found, next_rank = filter(text, from: from, limit: BATCH, budget: COUNT_STEP)
          acted = found.empty? ? 0 : yield(found)
          done += acted
          from = next_rank && [next_rank - acted, 0].max
        end
        done
      end

      def needle(text)
        text = text.to_s
        raise ArgumentError, "an empty filter matches every entry: use retry_all, delete_all or kill_all for the whole set" if text.empty?
        text
      end
    end
  end
end
