# frozen_string_literal: true

require "json"

module Deckhand
  class Store # :nodoc:
    module Records
      # Each queue's depth and latency, sampled once a minute by one server
      # process of the fleet (Server::Chores::QueueSampler), kept as long as
      # the per-minute execution metrics (72 hours), for the queue's chart.
      #
      #   minute = (store.clock.now / 60).floor
      #   if QueueSamples.claim(store, minute, "host:1234")           # one process a minute wins
      #     QueueSamples.write(store, minute, QueueSamples.measure(store, Time.at(minute * 60)))
      #   end
      #   QueueSamples.read(store, "mailers", since: minute - 59)    # => [[minute, 120, 4.5], ...] oldest first
      #
      # Layout: a zset per queue (Layout::Untagged.queue_samples), scored by
      # the minute (epoch seconds / 60), a member "<minute>:<jobs>:<latency
      # ms>" each. Bounded: a write first removes that minute's member (one
      # a minute, whoever wrote it) and every member older than RETENTION,
      # so a zset never holds more than 4,320 members (about 100 KB), and it
      # expires RETENTION after the last write once its queue is gone. At
      # most MAX_QUEUES queues are sampled, the deepest first.
      #
      # Each command touches one key: in cluster mode the pipeline sends
      # each to the node of its slot.
      module QueueSamples # :nodoc:
        RETENTION = Records::ExecutionMetrics::MINUTE_TTL
        MAX_QUEUES = 500
        # The claim outlives its minute so a slow process does not take it again.
        CLAIM_TTL = 120

        module_function

        # True for the one caller that takes `minute` (epoch seconds / 60).
        def claim(store, minute, identity)
          store.call("SET", Layout::Untagged.samples_taken(minute), identity, "NX", "EX", CLAIM_TTL) == "OK"
        end

        # [[queue, jobs, latency seconds], ...] for every queue Redis knows,
        # the deepest MAX_QUEUES. `lists` gives the lists of a queue
        # (Config::Partitions#names): a partitioned queue's add up under its
        # own name, its latency the longest of theirs. Two round trips.
        def measure(store, now, lists: ->(queue) { [queue] })
          names = Jobs::Queues.names(store).flat_map { |queue| [queue, *lists.call(queue)] }.uniq
          rows = Jobs::Queues.summaries(store, names)
          queues = rows.group_by { |name, *| Layout::PartitionNames.base(name) }.map do |base, lists|
            [base, lists.sum { |_, size, *| size }, lists.map { |_, _, oldest, _| latency(oldest, now) }.max]
          end
          queues.max_by(MAX_QUEUES) { |_, size, _| size }
        end

        # Writes one minute's samples, in one round trip.
        def write(store, minute, samples)
          return if samples.empty?
          store.pipelined do |pipe|
            samples.each do |name, size, latency|
              key = Layout::Untagged.queue_samples(name)
              pipe.call("ZREMRANGEBYSCORE", key, "-inf", minute - (RETENTION / 60))
              pipe.call("ZREMRANGEBYSCORE", key, minute, minute)
              pipe.call("ZADD", key, minute, "#{minute}:#{size}:#{(latency * 1000).round}")
              pipe.call("EXPIRE", key, RETENTION)
            end
          end
        end

        # [[minute, jobs, latency seconds], ...] of `name` from minute
        # `since` on, oldest first; [] for a queue never sampled. A member
        # that is not three numbers (another tool's) is left out.
        def read(store, name, since:)
          store.call("ZRANGEBYSCORE", Layout::Untagged.queue_samples(name), since, "+inf").filter_map do |member|
            minute, size, ms = member.split(":", 3)
            next unless [minute, size, ms].all? { |part| part&.match?(/\A\d+\z/) }
            [minute.to_i, size.to_i, ms.to_i / 1000.0]
          end
        end

        # Seconds the job at a queue's head has waited, by its enqueued_at
        # (0 for an empty queue or a payload without one).
        def latency(raw, now)
          at = Payload.to_time(JsonObject.parse(raw)&.fetch("enqueued_at", nil)) if raw
          at ? [now.to_f - at.to_f, 0.0].max : 0.0
        end
      end
    end
  end
end
