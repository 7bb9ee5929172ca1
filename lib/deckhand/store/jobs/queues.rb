# frozen_string_literal: true

require "digest"

require "json"
require_relative "fair_pushes"
require_relative "held_push"
require_relative "priority_levels"
require_relative "../marked_push"
require_relative "../json_object"

module Deckhand
  class Store
    module Jobs
      # Queue operations shared by the server and the data API. A paused queue's
      # name sits in the PAUSED set and in SIDEKIQ_PAUSED, the `paused` set
      # Sidekiq Pro's Queue#paused? and Web UI read (Sidekiq OSS has no pause):
      # fetchers skip a queue named in either, its jobs wait in place.
      #
      #   Deckhand::Store::Jobs::Queues.pause(store, "mailers")
      #   Deckhand::Store::Jobs::Queues.paused(store)              # => ["mailers"]
      #   Deckhand::Store::Jobs::Queues.summaries(store, ["mailers"]) # => [["mailers", 12, "{...oldest...}", true]]
      module Queues # :nodoc:
        PAUSED = Layout::Untagged::PAUSED
        SIDEKIQ_PAUSED = Layout::Untagged::SIDEKIQ_PAUSED
        PAUSE_SETS = [PAUSED, SIDEKIQ_PAUSED].freeze

        # How far around a job's last known position #delete looks for it.
        SEARCH_WINDOW = 200

        # What a push without scheduled jobs writes to the scheduled sets.
        NO_SETS = {}.freeze

        module_function

        def pause(store, name) = both(store, "SADD", name)

        def resume(store, name) = both(store, "SREM", name)

        def paused(store) = read_paused(store) { |pipe, set| pipe.call("SMEMBERS", set) }.reduce(:|)

        def paused?(store, name) = read_paused(store) { |pipe, set| pipe.call("SISMEMBER", set, name) }.include?(1)

        # Queues the reads of both pause sets on a pipeline (the heartbeat's);
        # their replies go to merge_paused.
        def queue_paused_read(pipe) = PAUSE_SETS.each { |set| pipe.call("SMEMBERS", set) }

        def merge_paused(replies) = replies.reduce(:|)

        def both(store, command, name)
          store.pipelined { |pipe| PAUSE_SETS.each { |set| pipe.call(command, set, name) } }.first
        end

        def read_paused(store, &block)
          store.pipelined { |pipe| PAUSE_SETS.each { |set| block.call(pipe, set) } }
        end

        def names(store) = store.call("SMEMBERS", store.layout::QUEUES).sort

        # Writes encoded jobs in one pipelined round trip: queued (queue name =>
        # [json, ...]) to their queues, newest on the left as Sidekiq does;
        # scheduled ([at, json, ...]) to the schedule set; then each queue's
        # name to the set of queues. In cluster mode each scheduled job goes
        # to its queue's scheduled set, and its queue is named in the set of
        # queues (the scheduler finds the shards there): `scheduled_queues`
        # names the queue of each [at, json] pair where the caller knows it,
        # else each payload's "queue" is read.
        #
        # The jobs' own writes decide the outcome (Store::Jobs::HeldPush): a push
        # raises only when Redis refused a job. A set of queues of the wrong
        # type refuses its SADD after every job was written: the push returns
        # (raising would have the application push the jobs again, twice
        # queued) and `logger` gets a warning naming the key and the fix, once
        # a minute at most (Store::Jobs::ListingWarning).
        def push(store, queued, scheduled, scheduled_queues = nil, fair: nil, logger: nil)
          tenants = Jobs::FairPushes::NO_TENANTS
          queued, tenants = Jobs::FairPushes.split(queued, fair) if Jobs::FairPushes.any?(fair) # jobs of tenants: their fair share (docs/fair-queues.md)
          keys = store.layout
          sets = scheduled_sets(keys, scheduled, scheduled_queues)
          unless keys.plain? # cluster mode: a new queue's placement, before the round trip
            keys.place(queued.keys)
            keys.place(sets.keys)
          end
          Jobs::FairPushes.pushing(store, tenants) do
            outcome = Jobs::HeldPush.write_sets(store, queued, sets, scheduled_queues) # WAITs for replicas when push_replicas is set
            raise Jobs::HeldPush.explained(outcome, queued, sets) if outcome.left # before the listing's warning, which calls its jobs queued
            store.listing_warning.refused(outcome.unlisted, logger) if outcome.unlisted
            store.level_warning.refused(outcome.unregistered, logger) if outcome.unregistered
            raise outcome.not_replicated if outcome.not_replicated
          end
        end

        # As #push, written so that its outcome is known even when the reply
        # is lost (Store::MarkedPush: one transaction per slot, with a mark
        # Redis is asked about): returns the outcome instead of raising, for
        # the caller to tell what was written and what was not. A refused set
        # of queue names is logged, as by #push.
        def push_marked(store, queued, scheduled, scheduled_queues = nil, fair: nil, logger: nil, patience: PushMarks::PATIENCE)
          outcome = MarkedPush.write(store, queued, scheduled, scheduled_queues, fair: fair, patience: patience)
          store.listing_warning.refused(outcome.unlisted, logger) if outcome.unlisted
          store.level_warning.refused(outcome.unregistered, logger) if outcome.unregistered
          outcome
        end

        # The name a list goes by in the set of queues: a partition's queue in
        # plain mode (Sidekiq and the dashboard show the queue once); the
        # partition itself in cluster mode, where the set is how its shard of
        # the retry and dead sets is found.
        def listed(keys, queue) = keys.sets_per_queue? ? queue : Layout::PartitionNames.base(queue)

        # queue => [at, json, ...]; one entry (any queue) for the single
        # schedule set of plain mode.
        def scheduled_sets(keys, scheduled, queues)
          return NO_SETS if scheduled.empty?
          return {nil => scheduled} unless keys.sets_per_queue?
          sets = Hash.new { |hash, queue| hash[queue] = [] }
          scheduled.each_slice(2).with_index do |(at, json), i|
            sets[queues ? queues[i] : queue_of(json)] << at << json
          end
          sets
        end

        # The "queue" of an encoded job (a push through a Client.pusher, which
        # carries no queue names beside the payloads).
        def queue_of(json)
          job = JSON.parse(json)
          queue = job["queue"] if job.is_a?(Hash)
          raise InvalidJob, "a scheduled job has no \"queue\": #{json[0, 80]}" unless queue.is_a?(String) && !queue.empty?
          queue
        end

        # The queue's jobs, its tenants' jobs waiting for their fair share and its jobs with a priority included.
        def size(store, name)
          store.pipelined do |pipe|
            pipe.call("LLEN", store.layout.queue(name))
            pipe.call("ZCARD", store.layout.fair_jobs(name))
          end.sum + PriorityLevels.waiting(store, [name]).fetch(name)
        end

        # The payload that runs next (pushed on the left, taken from the right;
        # a fair queue's tenants' jobs after the queue's; PriorityLevels.next_of), or nil.
        def oldest(store, name)
          first, fair = store.pipelined do |pipe|
            pipe.call("LINDEX", store.layout.queue(name), -1)
            pipe.call("ZRANGE", store.layout.fair_jobs(name), 0, 0)
          end
          PriorityLevels.next_of(store, name, first || fair_payload(fair.first))
        end

        # A payload of a fair queue's tenants' jobs ("<tenant>\n<payload>").
        def fair_payload(member) = member && member[(member.index("\n") + 1)..]

        # Size, oldest payload (the next to run) and paused flag of each queue,
        # in one round trip: [[name, size, oldest_raw_or_nil, paused], ...].
        def summaries(store, names)
          return [] if names.empty?
          store.layout.place(names)
          replies = store.pipelined do |pipe|
            names.each do |name|
              pipe.call("LLEN", store.layout.queue(name))
              pipe.call("LINDEX", store.layout.queue(name), -1)
              pipe.call("ZCARD", store.layout.fair_jobs(name))
            end
            PAUSE_SETS.each { |set| pipe.call("SMISMEMBER", set, *names) }
          end
          paused = replies.pop.zip(replies.pop).map(&:max)
          prioritized = PriorityLevels.waiting(store, names)
          names.each_with_index.map do |name, i|
            length, first, fair = replies[3 * i, 3]
            more = fair + prioritized.fetch(name)
            [name, length + more, more.positive? ? oldest(store, name) : first, paused[i] == 1]
          end
        end

        # Up to `count` payloads in the order they will run, skipping the first
        # `offset`. Jobs are pushed on the left and taken from the right, so the
        # page is read from the right end: cheap for the first pages of any queue.
        # level: of the queue's list at that priority level (docs/priority.md).
        def page(store, name, offset, count, level: nil)
          return [] if count <= 0
          store.call("LRANGE", PriorityLevels.list(store.layout, name, level), -(offset + count), -(offset + 1)).reverse
        end

        # Deletes the job with this jid, looking near `position` (its place in
        # line when it was listed; jobs ahead of it may have run since) in the
        # list of `level` (nil: the queue's own). Returns true when it was
        # found and removed.
        def delete(store, name, jid, position: 0, level: nil)
          key = PriorityLevels.list(store.layout, name, level)
          first = [position - SEARCH_WINDOW, 0].max
          raws = store.call("LRANGE", key, -(position + SEARCH_WINDOW + 1), -(first + 1))
          raw = raws.reverse_each.find { |c| c.include?(jid) && jid_of(c) == jid } or return false
          store.call("LREM", key, -1, raw) == 1
        end

        # Puts jobs back at the front of their queues, taken next (drop-in
        # mode's Sidekiq::BasicFetch units given back): {queue name => [raw, ...]}.
        def put_back(store, raws_by_queue)
          store.pipelined do |pipe|
            raws_by_queue.each { |name, raws| pipe.call("RPUSH", store.layout.queue(name), *raws) unless raws.empty? }
          end
          nil
        end

        # Deletes the entry that is exactly `raw` (a job's JSON as queued),
        # wherever it is in the queue. Returns true when it was there.
        def remove(store, name, raw) = store.call("LREM", store.layout.queue(name), 1, raw) == 1

        # Deletes the entry whose digest (QueuedJob#digest) is this, looking
        # around `position`: the way to remove an entry that is not a job, which
        # has no jid; level: as for #delete. Returns true when it was found and deleted.
        def delete_entry(store, name, digest, position: 0, level: nil)
          key = PriorityLevels.list(store.layout, name, level)
          first = [position - SEARCH_WINDOW, 0].max
          raws = store.call("LRANGE", key, -(position + SEARCH_WINDOW + 1), -(first + 1))
          raw = raws.reverse_each.find { |c| Digest::SHA256.hexdigest(c) == digest } or return false
          store.call("LREM", key, -1, raw) == 1
        end

        # Empties the queue and forgets its name, as Sidekiq does. In cluster
        # mode the name stays while the queue's shard of the schedule, retry
        # or dead set holds entries: the name is how those are found.
        def clear(store, name)
          keys = store.layout
          PriorityLevels.clear(store, name)
          return clear_shard_owner(store, name) if keys.sets_per_queue?
          store.pipelined do |pipe|
            pipe.call("UNLINK", keys.queue(name), keys.fair_jobs(name), keys.fair_tenants(name))
            pipe.call("SREM", keys::QUEUES, name)
          end
          nil
        end

        def clear_shard_owner(store, name)
          keys = store.layout
          sets = [keys.scheduled_set(name), keys.retry_set(name), keys.dead_set(name)]
          _, *sizes = store.pipelined do |pipe|
            pipe.call("UNLINK", keys.queue(name), keys.fair_jobs(name), keys.fair_tenants(name))
            sets.each { |set| pipe.call("ZCARD", set) }
          end
          store.call("SREM", keys::QUEUES, name) if sizes.sum.zero?
          nil
        end

        def jid_of(raw) = JsonObject.parse(raw)&.[]("jid")
      end
    end
  end
end
