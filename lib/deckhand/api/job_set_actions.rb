# frozen_string_literal: true

require "json"
require_relative "death_notice"

module Deckhand
  class API
    # JobSet's writes: filing, moving, burying, retrying, deleting and killing
    # entries, one shard's worth per call in cluster mode; and the whole set,
    # BATCH entries at a time.
    #
    #   api.scheduled.add(json, Time.now.to_f + 60)
    #   api.retries.retry(entries)   # => 3 (back to their queues now)
    #   api.retries.kill(entries)    # => 3 (to the dead set, death handlers told)
    #   api.dead.delete_all
    module JobSetActions # :nodoc: JobSet's documentation covers these
      # Files a job (its JSON) in the set at `at` (epoch seconds); in cluster
      # mode in its queue's shard. The scheduler moves due entries of the
      # schedule and retry sets to their queues.
      def add(raw, at)
        entry = SetEntry.new(raw, at.to_f)
        Store::Sets::OneSet.add(@store, @shards.key(shard_of(entry)), entry.score, raw)
        entry
      end

      # Moves an entry to another time (due then, or died then); false when
      # it has left the set.
      def reschedule(entry, at)
        Store::Sets::OneSet.rescore(@store, @shards.key(shard_of(entry)), entry.raw, at.to_f)
      end

      # Adds a job that is in no set (its JSON) to the dead set, trimmed as a
      # death trims it; the death handlers hear of it unless notify: false,
      # with `error` (a KilledByHand by default). Dead set only; `now`, the
      # time of death (epoch seconds).
      def bury(raw, error: nil, notify: true, now: fleet_now)
        raise ArgumentError, "jobs are buried in the dead set, not the #{@name} set" unless @name == :dead
        entry = SetEntry.new(raw, now.round(3))
        Store::Sets::OneSet.bury(@store, @shards.key(shard_of(entry)), raw, now: entry.score, max_jobs: @config.dead_max_jobs, timeout: @config.dead_timeout)
        DeathNotice.new(@config, @name).deliver([entry], error: error) if notify
        entry
      end

      # Sends entries to their queues now (in cluster mode, to the queue of
      # the shard each came from). Entries that are not jobs stay. Returns
      # how many were queued.
      def retry(entries)
        apart!("retried")
        retryable = entries.select { |entry| retryable?(entry) }
        moves = by_shard(retryable) { |entry| [entry.raw, entry.queue, requeued(entry)] }
        moved = @shards.move(moves)
        note_paused(retryable, moved)
        moved
      end

      # How many jobs this object's retries sent into paused queues, where
      # they wait until resumed: queue => count. When some entries had left
      # the set before the move, counted as if the first ones moved.
      def sent_to_paused = @sent_to_paused ||= Hash.new(0)

      def delete(entries) = @shards.remove(by_shard(entries, &:raw))

      # Moves entries to the dead set, then tells the config's death handlers
      # (a batch's :death callback among them) about each job this call moved,
      # with a KilledByHand error. Returns how many moved.
      def kill(entries)
        raise ArgumentError, "jobs in the dead set are dead already" if @name == :dead
        apart!("killed")
        groups = entries.group_by { |entry| shard_of(entry) }
        moved = @shards.kill(groups.transform_values { |list| list.map(&:raw) },
          locks: groups.transform_values { |list| list.map { |e| Unique.held_by(e.item, @store.layout) } },
          now: fleet_now.round(3), max_jobs: @config.dead_max_jobs, timeout: @config.dead_timeout)
        killed = moved.flat_map { |shard, indexes| indexes.map { |i| groups.fetch(shard)[i] } }
        DeathNotice.new(@config, @name).deliver(killed)
        killed.size
      end

      def retry_all = each_batch(->(entry) { !retryable?(entry) }) { |entries| self.retry(entries) }

      def kill_all = each_batch(->(_) { false }) { |entries| kill(entries) }

      def delete_all = @shards.clear

      private

      # The time of a death by the fleet's clock (Store::Records::Clock), measured
      # again when the last look is a minute old: the dead set is trimmed by
      # it, and every server reads its scores.
      def fleet_now
        @store.clock.refresh
        @store.clock.now
      end

      # A named set in cluster mode: its key's slot holds no queue nor dead
      # set, and a job is never out of both, so its entries stay where they are.
      def apart!(deed)
        return unless @shards.apart?
        raise ArgumentError, "the entries of the sorted set #{@name.inspect} cannot be #{deed} in cluster mode: its key is in " \
          "a slot of its own, apart from the queues and the dead set; read or delete them, and push their jobs again with Deckhand::Client"
      end

      def note_paused(entries, moved)
        return if moved.zero?
        @paused ||= Store::Jobs::Queues.paused(@store)
        entries.first(moved).each { |entry| sent_to_paused[entry.queue] += 1 if @paused.include?(entry.queue) }
      end

      def retryable?(entry) = !entry.corrupt? && entry.klass && entry.queue && !entry.queue.empty?

      # {shard => [what the block makes of each entry, ...]}.
      def by_shard(entries, &block) = entries.group_by { |entry| shard_of(entry) }.transform_values { |list| list.map(&block) }

      # Sidekiq's rule: a retry started by hand does not use up one of the
      # job's automatic retries.
      def requeued(entry)
        job = entry.item.dup
        job["retry_count"] -= 1 if @name != :scheduled && job["retry_count"].is_a?(Integer)
        job["enqueued_at"] = Payload.now(@config.timestamps, clock: @config.store.clock)
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
            batch = Store::Sets::OneSet.page(@store, key, offset, JobSet::BATCH).map { |raw, score| SetEntry.new(raw, score, shard: shard) }
            break if batch.empty?
            done += yield batch
            offset += batch.count(&stays)
          end
        end
        done
      end
    end
  end
end
