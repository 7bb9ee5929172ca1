# frozen_string_literal: true

require_relative "bulk_encoder"
require_relative "locked_push"
require_relative "collapsed_push"

module Deckhand
  class Client
    # The last step of a push: encodes jobs that are ready to go (middleware
    # run, locks known, arguments sealed) and hands them on, to the collector
    # of a Client.collecting block, to the pusher, or to Redis (Client.write).
    #
    #   Delivery.enqueue(config, [job], nil)                   # queued now
    #   Delivery.enqueue(config, [job], [Time.now.to_f + 60])  # scheduled
    #   Delivery.encoded(config, base, [[1], [2]], nil, jids)  # => jids (push_bulk's fast path)
    module Delivery # :nodoc:
      module_function

      # Encodes the jobs and hands them to the pusher, or to Redis (Client.write).
      # `keys`: each job's partition key (`partition_by`), or nil.
      def enqueue(config, jobs, ats, keys = nil)
        return if jobs.empty?
        collector = Thread.current[COLLECTOR]
        return collector.collect(jobs, ats) if collector
        max = config.max_payload_bytes
        now = Payload.now(config.timestamps)
        scheduled = []
        scheduled_queues = nil # the queue of each scheduled job, built only when one is
        queued = {} # no default block: a Proc a push for nothing
        # Each job's list (Config::Partitions), also for a pusher: push-after-commit
        # writes them later as they are, testing reads each payload's "queue".
        # A unique job goes to the queue's own list, where its lock lives.
        partitions = config.partitions unless config.partitions.empty?
        fair = config.fair_queues
        jobs.each_with_index do |job, i|
          at = ats && ats[i]
          tenant = fair.tenant(job) and job["tenant"] = tenant # a fair queue's (Store::Jobs::FairPushes)
          if at
            # The time lives in the score only, as Sidekiq stores it: Sidekiq's
            # client sends a payload that carries "at" back to the schedule, so
            # its dashboard's "Add to queue" would not enqueue it.
            scheduled << at << Payload.encode(job, max_bytes: max)
            (scheduled_queues ||= []) << job["queue"]
          else
            job["enqueued_at"] = now
            list = (partitions && !job["unique_key"]) ? partitions.route(job["queue"], keys && keys[i]) : job["queue"]
            (queued[list] ||= []) << Payload.encode(job, max_bytes: max)
          end
        end
        deliver(config, queued, scheduled, scheduled_queues)
      end

      # The fast path of push_bulk: no job Hash per job, the shared JSON
      # generated once. Returns the jids (those given, one per job).
      def encoded(config, base, slice, ats, jids = Payload.jids(slice.size))
        encoder = BulkEncoder.new(base, now: Payload.now(config.timestamps), max_bytes: config.max_payload_bytes)
        queued = []
        scheduled = []
        slice.each_with_index do |args, i|
          at = ats && ats[i]
          if at
            scheduled << at << encoder.scheduled(jids[i], args)
          else
            queued << encoder.queued(jids[i], args)
          end
        end
        queued = queued.empty? ? {} : {base["queue"] => queued}
        queued = config.partitions.spread(base["queue"], queued[base["queue"]]) unless queued.empty?
        deliver(config, queued, scheduled, Array.new(scheduled.size / 2, base["queue"]))
        jids
      end

      # Unique and deduplicated jobs through a pusher: enqueued as usual;
      # those the pusher wrote at once and found locked, or kept out by a
      # job waiting with the same dedupe key, come back nil (or raise
      # NotUnique).
      def watched(config, jobs, ats)
        conflicts = LockedPush.watch { enqueue(config, jobs, ats.any? ? ats : nil) }
        jobs.map do |job|
          holder = conflicts[job["jid"]] or next job["jid"]
          (job["dedupe"] ? CollapsedPush : LockedPush).new(config).conflict(job, holder)
          nil
        end
      end

      # scheduled_queues: the queue of each scheduled job, for Client.write.
      def deliver(config, queued, scheduled, scheduled_queues)
        pusher = Client.pusher
        pusher ? pusher.call(queued, scheduled, config) : Client.write(queued, scheduled, config, scheduled_queues)
      end

      # Client.write: a plain push in one pipelined round trip
      # (Store::Jobs::Queues.push). A slice of push_bulk (Client::BulkPush) and a
      # reliable push (Client::PushBuffer) are written as marked pushes
      # (Store::MarkedPush), whose outcome is known even when the reply is
      # lost: a slice's goes to its BulkPush instead of being raised.
      def write(queued, scheduled, config, scheduled_queues)
        if Client.pusher
          queued, scheduled = LockedPush.new(config).deferred(queued, scheduled)
          queued, scheduled = CollapsedPush.new(config).deferred(queued, scheduled)
          return nil if queued.empty? && scheduled.empty? # every job was unique or collapsing: written by its script
          scheduled_queues = nil
        end
        slice = Thread.current[SLICE]
        if config.reliable_push
          outcome = PushBuffer.for(config).write(queued, scheduled, scheduled_queues)
        elsif slice
          outcome = Store::Jobs::Queues.push_marked(config.store, queued, scheduled, scheduled_queues, fair: config.fair_queues, logger: config.logger)
        else
          return Store::Jobs::Queues.push(config.store, queued, scheduled, scheduled_queues, fair: config.fair_queues, logger: config.logger)
        end
        return slice.written(queued, scheduled, outcome) if slice
        raise outcome.refusal if outcome.left
        raise outcome.not_replicated if outcome.not_replicated
        nil
      end
    end
  end
end
