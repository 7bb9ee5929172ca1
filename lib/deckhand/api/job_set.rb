# frozen_string_literal: true

require "json"
require_relative "set_entry"
require_relative "death_notice"
require_relative "set_groups"

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
    class JobSet
      SETS = {
        scheduled: [Store::Keys::SCHEDULE, false],
        retries: [Store::Keys::RETRY, false],
        dead: [Store::Keys::DEAD, true] # newest death first
      }.freeze
      BATCH = 500
      SCAN_BUDGET = 10_000
      COUNT_STEP = 50_000
      GROUP_BUDGET = 10_000

      attr_reader :name, :key

      def initialize(name, config)
        @key, @reverse = SETS.fetch(name) { raise ArgumentError, "no job set #{name.inspect}; one of #{SETS.keys.join(", ")}" }
        @name = name
        @config = config
        @store = config.store
      end

      def size = Store::SortedSets.size(@store, @key)

      def clear = delete_all

      # Entries of one page (1-based), in the set's order.
      def page(number, per_page)
        offset = (number - 1) * per_page
        Store::SortedSets.page(@store, @key, offset, per_page, reverse: @reverse)
          .each_with_index.map { |(raw, score), i| SetEntry.new(raw, score, rank: offset + i) }
      end

      # Entries containing `text` (case-sensitive), looking at up to `budget`
      # entries from rank `from`. Returns [entries, rank to resume from or nil].
      def filter(text, from: 0, limit: 25, budget: SCAN_BUDGET)
        next_rank, found = Store::SortedSets.scan(@store, @key, text, from: from, limit: limit, budget: budget, reverse: @reverse)
        [found.map { |rank, raw, score| SetEntry.new(raw, score, rank: rank) }, next_rank]
      end

      # How many entries contain `text` (as `filter` matches them), counted
      # inside Redis COUNT_STEP entries per call: a number, never the entries.
      def count_matching(text)
        text = needle(text)
        total = 0
        from = 0
        while from
          from, matches = Store::SortedSets.count(@store, @key, text, from: from, budget: COUNT_STEP)
          total += matches
        end
        total
      end

      # The set counted by error class and job class (SetGroups), inside
      # Redis: the first `budget` entries (in score order), or all with nil.
      def groups(budget: GROUP_BUDGET)
        errors = Hash.new(0)
        classes = Hash.new(0)
        from = 0
        examined = 0
        while from && (budget.nil? || examined < budget)
          step = budget ? [budget - examined, GROUP_BUDGET].min : GROUP_BUDGET
          next_rank, errs, kinds = Store::SortedSets.groups(@store, @key, from: from, budget: step)
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
        Store::SortedSets.at_score(@store, @key, score).each do |raw|
          entry = SetEntry.new(raw, score)
          return entry if entry.ident == ident
        end
        nil
      end

      # Sends entries to their queues now. Entries that are not jobs stay.
      # Returns how many were queued.
      def retry(entries)
        moves = entries.filter_map do |entry|
          [entry.raw, entry.queue, requeued(entry)] if retryable?(entry)
        end
        Store::SortedSets.move_to_queues(@store, @key, moves)
      end

      def delete(entries) = Store::SortedSets.remove(@store, @key, entries.map(&:raw))

      # Moves entries to the dead set, then tells the config's death handlers
      # (a batch's :death callback among them) about each job this call moved,
      # with a KilledByHand error. Returns how many moved.
      def kill(entries)
        raise ArgumentError, "jobs in the dead set are dead already" if @name == :dead
        moved = Store::SortedSets.kill(@store, @key, entries.map(&:raw), now: ::Process.clock_gettime(::Process::CLOCK_REALTIME).round(3),
          max_jobs: @config.dead_max_jobs, timeout: @config.dead_timeout, locks: entries.map { |e| Unique.held_by(e.item, @store.keys) })
        DeathNotice.new(@config, @name).deliver(moved.map { |i| entries[i] })
        moved.size
      end

      def retry_all = each_batch(->(entry) { !retryable?(entry) }) { |entries| self.retry(entries) }

      def kill_all = each_batch(->(_) { false }) { |entries| kill(entries) }

      def delete_all
        count = size
        Store::SortedSets.clear(@store, @key)
        count
      end

      private

      def retryable?(entry) = !entry.corrupt? && entry.klass && entry.queue && !entry.queue.empty?

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
      def each_batch(stays)
        done = 0
        offset = 0
        loop do
          batch = page_at(offset)
          break if batch.empty?
          done += yield batch
          offset += batch.count(&stays)
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

      def page_at(offset)
        Store::SortedSets.page(@store, @key, offset, BATCH).map { |raw, score| SetEntry.new(raw, score) }
      end
    end
  end
end
