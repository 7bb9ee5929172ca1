# frozen_string_literal: true

require_relative "set_groups"

module Deckhand
  class API
    # JobSet's searches, inside Redis a bounded step at a time: entries that
    # contain a text, how many do, the set counted by error and job class,
    # one jid; and acting on every match (JobSetActions does the acting).
    #
    #   entries, resume_at = api.retries.filter("Timeout::Error")
    #   api.retries.count_matching("Timeout::Error")   # => 312
    #   api.dead.groups.errors.first                    # => #<Group name="Net::ReadTimeout", count=25, ...>
    #   api.retries.delete_matching("Net::ReadTimeout") # => 25
    module JobSetSearch # :nodoc: JobSet's documentation covers these
      # Entries containing `text` (case-sensitive; an Array of texts: entries
      # containing every one of them), looking at up to `budget`
      # entries from rank `from`. Returns [entries, rank to resume from or nil].
      # In cluster mode ranks count through the queues' shards one after
      # another (by queue name), in the set's order within each.
      def filter(text, from: 0, limit: 25, budget: JobSet::SCAN_BUDGET)
        next_rank, found = @shards.scan(text.is_a?(Array) ? needle(text) : text, from: from, limit: limit, budget: budget, reverse: @reverse)
        [found.map { |rank, shard, raw, score| SetEntry.new(raw, score, rank: rank, shard: shard) }, next_rank]
      end

      # How many entries contain `text` (as `filter` matches them), counted
      # inside Redis COUNT_STEP entries per call: a number, never the entries.
      def count_matching(text) = @shards.count(needle(text), step: JobSet::COUNT_STEP)

      # The set counted by error class and job class (SetGroups), inside
      # Redis: the first `budget` entries (in score order), or all with nil.
      def groups(budget: JobSet::GROUP_BUDGET)
        errors = Hash.new(0)
        classes = Hash.new(0)
        cells = {}
        from = 0
        examined = 0
        while from && (budget.nil? || examined < budget)
          step = budget ? [budget - examined, JobSet::GROUP_BUDGET].min : JobSet::GROUP_BUDGET
          next_rank, errs, kinds, pairs = @shards.groups(from: from, budget: step)
          errs.each { |name, n| errors[name] += n }
          kinds.each { |name, n| classes[name] += n }
          Store::Sets::Shards.merge_cells(cells, pairs)
          examined += errs.values.sum
          from = next_rank
        end
        SetGroups.new(errors, classes, examined: examined, complete: from.nil?, cells: cells)
      end

      # Retry, delete or kill only the entries that contain `text`, BATCH at a
      # time, each acted on as the exact entry found (never by position).
      # Returns how many were acted on.
      #
      #   api.retries.delete_matching("Net::ReadTimeout")   # => 25
      def retry_matching(text) = each_match(text) { |entries| self.retry(entries) }

      def delete_matching(text) = each_match(text) { |entries| delete(entries) }

      def kill_matching(text) = each_match(text) { |entries| kill(entries) }

      # Before retrying the matches of `text`: how many of them would go to a
      # paused queue (and wait there), queue => count, reading at most
      # `limit` matches; complete is false when more were left unread.
      #
      #   api.retries.paused_among("Timeout")   # => [{"mailers" => 12}, true]
      def paused_among(text, limit: JobSet::GROUP_BUDGET)
        paused = Store::Jobs::Queues.paused(@store)
        return [{}, true] if paused.empty?
        counts = Hash.new(0)
        read = 0
        from = 0
        while from && read < limit
          found, from = filter(needle(text), from: from, limit: JobSet::BATCH, budget: JobSet::COUNT_STEP)
          read += found.size
          found.each { |entry| counts[entry.queue] += 1 if paused.include?(entry.queue) }
        end
        [counts, from.nil?]
      end

      # The entry with this jid, searching the whole set (in bounded steps).
      # Each step stops at the first entry containing the jid, which is nearly
      # always the job itself; one that only mentions it is stepped over, a
      # round trip each. exact: true looks for `"jid":"<jid>"` as compact
      # JSON writes it (Ruby's, Sidekiq's clients), which no mention inside
      # an argument matches: for a text that may fill many jobs' arguments.
      #
      #   api.retries.find_jid("98431", exact: true)   # one step per 50,000 entries, however many mention it
      def find_jid(jid, exact: false)
        needle = exact ? %("jid":#{JSON.generate(jid)}) : jid
        from = 0
        while from
          found, from = filter(needle, from: from, limit: 1, budget: 50_000)
          match = found.find { |entry| entry.jid == jid }
          return match if match
        end
        nil
      end

      private

      # Scans for matches from the start; what was acted on left the set, so
      # the next scan starts that many ranks earlier. Entries moved by someone
      # else meanwhile can only make it skip a match, never act twice.
      def each_match(text)
        text = needle(text)
        done = 0
        from = 0
        while from
          found, next_rank = filter(text, from: from, limit: JobSet::BATCH, budget: JobSet::COUNT_STEP)
          acted = found.empty? ? 0 : yield(found)
          done += acted
          from = next_rank && [next_rank - acted, 0].max
        end
        done
      end

      # A text, or several (an Array) that an entry must all contain.
      def needle(text)
        texts = Array(text).map(&:to_s).reject(&:empty?)
        raise ArgumentError, "an empty filter matches every entry: use retry_all, delete_all or kill_all for the whole set" if texts.empty?
        (texts.size == 1) ? texts.first : texts
      end
    end
  end
end
