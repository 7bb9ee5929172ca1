# frozen_string_literal: true

require "json"
require_relative "../push/fair_push"

module Deckhand
  class Store
    module Scripts
      # schedule.lua and the read before it: finds the due entries of the
      # schedule and retry sets, reads each one's queue, then moves them with
      # the script, every queue it pushes to declared. Two round trips when
      # something is due, one when nothing is.
      #
      # In cluster mode every queue has its own sets (Layout#sets_per_queue?):
      # the shards of the known queues (the set of queues, plus `queues`, the
      # ones this process serves) are read in one pipeline and moved with one
      # call per set, pipelined too; a due entry for another queue than its
      # shard's (a retry_queue) is claimed, pushed, then removed.
      #
      # A due job of a fair queue (`fair`, a Config::FairQueues) that names
      # its tenant goes into its tenant's turn, as its push did
      # (docs/fair-queues.md), not ahead of the other tenants. A due job with
      # a priority goes to its level's list (docs/priority.md), its level
      # named in the queue's set of levels first; where Redis refuses that,
      # to the queue itself.
      #
      #   schedule = Schedule.new(store, queues: %w[default mail], fair: config.fair_queues)
      #   moved, corrupt, earliest = schedule.call(now: Time.now.to_f, limit: 100, stamp: 1732000000000)
      class Schedule < Script # :nodoc:
        lua "sets/schedule", uses: ["guard", "fair", "schedule_move"]

        # How long a claimed entry waits before it is due again, should the
        # scheduler that claimed it die before pushing it.
        CLAIM = 60

        def initialize(store, queues: [], fair: nil)
          super(store)
          @queues = queues
          @fair = fair
        end

        # Moves up to `limit` due entries of each set; returns [moved,
        # corrupt, earliest score still waiting or nil, unlisted]. unlisted:
        # true when the set of queue names holds another type: the jobs moved
        # all the same (it is bookkeeping), their queues not listed.
        def call(now:, limit:, stamp:)
          @unlisted = false
          @named = {} # [queue, level] => named in the queue's set of levels
          due, earliest = read(sets, now, limit)
          due = passed(due, stamp).reject { |_, entries| entries.empty? }
          moved, corrupt = if due.empty? then [0, 0]
          elsif keys.sets_per_queue? then move_shards(due, now, stamp)
          else
            replies = due.map { |set_queue, entries| run(*command(set_queue, entries, now, stamp)) }
            @unlisted = replies.any? { |reply| reply[2] == 1 }
            replies.map { |reply| reply.first(2) }.transpose.map(&:sum)
          end
          [moved, corrupt, earliest, @unlisted]
        end

        private

        # [set, its queue (nil in plain mode)] of every set to look at.
        def sets
          queues = keys.sets_per_queue? ? (listed_queues | @queues) : []
          scheduled, retries = %i[scheduled_set retry_set].map { |kind| keys.set_keys(kind, queues) }
          scheduled.zip(retries).flatten(1).map { |queue, set| [set, queue] }
        end

        # Cluster mode: the queues named in the set of queue names; when it
        # holds another type, none (this process's own are looked at anyway).
        def listed_queues
          @store.call("SMEMBERS", keys::QUEUES)
        rescue CommandError => e
          raise unless e.code == "WRONGTYPE"
          @unlisted = true
          []
        end

        def read(sets, now, limit)
          at = now.round(3).to_s
          replies = @store.pipelined do |pipe|
            sets.each do |set, _|
              pipe.call("ZRANGE", set, "-inf", at, "BYSCORE", "LIMIT", 0, limit)
              pipe.call("ZRANGE", set, 0, 0, "WITHSCORES")
            end
          end
          due = sets.each_with_index.map { |set, i| [set, replies[2 * i]] }
          scores = sets.each_index.filter_map { |i| first_score(replies[(2 * i) + 1]) }
          [due, scores.min]
        end

        # [KEYS, ARGV] for one set's due entries. In cluster mode the set's
        # own queue is the only one the script pushes to; entries for another
        # are claimed (-1) and pushed by #hand_over.
        def command((set, shard), entries, now, stamp)
          jobs = entries.map { |raw| job_of(raw) }
          # [queue, priority level or nil] per list the entries go to; in
          # cluster mode the queue's own first (schedule.lua names it there).
          queues = (shard && jobs.any? { |job| job && job["queue"] == shard && level_of(job) }) ? [[shard, nil]] : []
          fair = {} # queue => its tenants' keys, for the queues a tenant's job goes to
          claim = (now + CLAIM).round(3).to_s
          fives = entries.zip(jobs).flat_map do |raw, job|
            next [raw, 0, "0", "", ""] unless job
            next [raw, -1, claim, "", ""] if shard && job["queue"] != shard
            queue = job["queue"]
            tenant = tenant_of(job)
            list = [queue, tenant ? nil : level_of(job)]
            index = queues.index(list) || (queues << list).size - 1
            fair[queue] ||= [keys.fair_jobs(queue), keys.fair_tenants(queue)] if tenant
            [raw, index + 1, written(raw, job), tenant || "", tenant ? @fair.step(queue, tenant).to_s : ""]
          end
          registry = shard ? keys.queue(shard) : keys::QUEUES
          dead = shard ? keys.dead_set(shard) : keys::DEAD
          lists = [set, dead, registry, *queues.map { |q, level| level ? keys.priority(q, level) : keys.queue(q) }]
          places = queues.map { |q, level| (fair[q] && !level) ? (lists.size + (2 * fair.keys.index(q)) + 1) : 0 }
          [lists + fair.values.flatten, [stamp, now.round(3).to_s, queues.size, *queues.map(&:first), *places, *fives]]
        end

        # A due job's priority level when it waits at one (an Integer other
        # than 0) and its queue's set of levels names it (written here once
        # per call); nil: the job goes to its queue.
        def level_of(job)
          level = job["priority"]
          return nil unless level.is_a?(Integer) && !level.zero? && Payload::PRIORITIES.cover?(level)
          @named.fetch([job["queue"], level]) do |pair|
            @named[pair] = begin
              @store.call("SADD", keys.priorities(pair[0]), level) && level
            rescue CommandError
              nil # a set of levels of another type: the queue itself, where the job is fetched
            end
          end
        end

        # The tenant a due job of a fair queue names, when it names one that
        # a push would take (1 to 200 characters, no newline); nil otherwise.
        def tenant_of(job)
          return nil unless @fair&.fair?(job["queue"])
          tenant = job["tenant"]
          tenant = tenant.to_s if tenant.is_a?(Symbol) || tenant.is_a?(Integer)
          (tenant.is_a?(String) && tenant.size.between?(1, 200) && !tenant.include?("\n")) ? tenant : nil
        end

        # Cluster mode: one call per set, pipelined; the queues that got jobs
        # named in the set of queues; claimed entries handed over.
        def move_shards(due, now, stamp)
          calls = due.map { |set_queue, entries| command(set_queue, entries, now, stamp) }
          replies = @store.evalsha_many(self.class, calls)
          filled = due.zip(replies).select { |_, reply| reply[0].positive? }.map { |((_, queue), _), _| queue }.uniq
          list(filled) unless filled.empty?
          claimed = due.zip(replies).flat_map do |((set, _), entries), reply|
            reply.drop(3).map { |place| [set, entries[place - 1]] }
          end
          hand_over(claimed, stamp) unless claimed.empty?
          [replies.sum(&:first) + claimed.size, replies.sum { |reply| reply[1] }]
        end

        # Names queues that got jobs in the set of queue names (cluster
        # mode); bookkeeping, so a set of another type is noted, not raised.
        def list(queues)
          @store.call("SADD", keys::QUEUES, *queues)
        rescue CommandError => e
          raise unless e.code == "WRONGTYPE"
          @unlisted = true
        end

        # Claimed entries go to their queues, then leave their sets: two
        # round trips, so an entry is never out of both. An entry whose push
        # Redis refused stays claimed, due again a minute later.
        # A tenant's job of a fair queue goes into its tenant's turn
        # (fair_push.lua, which adds the same job only once).
        def hand_over(claimed, stamp)
          pushes = claimed.map { |_, raw| [job_of(raw), payload_of(raw, stamp)] }
          replies = @store.pipelined(exception: false) do |pipe|
            pushes.each { |job, payload| pipe.call("LPUSH", keys.queue(job["queue"]), payload) unless tenant_of(job) }
          end
          replies = pushes.map { |job, payload| tenant_of(job) ? fair_push(job, payload) : replies.shift }
          pushed = claimed.each_index.reject { |i| replies[i].is_a?(StandardError) }
          list(pushed.map { |i| pushes[i][0]["queue"] }.uniq) unless pushed.empty?
          @store.pipelined { |pipe| pushed.each { |i| pipe.call("ZREM", *claimed[i]) } } unless pushed.empty?
          refused = replies.find { |reply| reply.is_a?(StandardError) }
          raise refused.is_a?(Deckhand::Error) ? refused : @store.refusal(refused) if refused
        end

        # The added count, or the refusal (raised later, as the pipeline's).
        def fair_push(job, payload)
          tenant = tenant_of(job)
          FairPush.new(@store).call(job["queue"], [[tenant, @fair.step(job["queue"], tenant), payload]])
        rescue Deckhand::RedisError => e
          e
        end

        # Hooks for ScheduleGiven, whose caller sees each due job first: the
        # due entries to move, the job an entry holds, its third field in the
        # script's fives ("1" when it lacks "enqueued_at") and what a claimed
        # entry's push writes.
        def passed(due, _stamp) = due

        def job_of(raw) = parse(raw)

        def written(_raw, job) = job.key?("enqueued_at") ? "0" : "1"

        def payload_of(raw, stamp) = stamped(raw, stamp)

        # The payload with "enqueued_at" added last when it has none (as
        # schedule.lua does: every byte before it kept).
        def stamped(raw, stamp)
          return raw if parse(raw).key?("enqueued_at")
          body = raw[/\A(.*)\}\s*\z/m, 1]
          separator = body.match?(/\{\s*\z/) ? "" : ","
          "#{body}#{separator}\"enqueued_at\":#{stamp}}"
        end

        # A job has a class and a non-empty queue name; anything else is corrupt.
        def parse(raw)
          job = JSON.parse(raw)
          return nil unless job.is_a?(Hash) && job.key?("class")
          queue = job["queue"]
          (queue.is_a?(String) && !queue.empty? && raw.rstrip.end_with?("}")) ? job : nil
        rescue JSON::ParserError
          nil
        end

        # ZRANGE WITHSCORES answers [[member, score]] over RESP3, [member, score] over RESP2.
        def first_score(reply)
          return nil if reply.empty?
          Float(reply.first.is_a?(Array) ? reply.first[1] : reply[1])
        end
      end
    end
  end
end
