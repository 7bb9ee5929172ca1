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
      #   QueueSamples.read(store, "mailers", from: minute - 59, to: minute)   # => [[minute, 120, 4.5], ...] oldest first
      #
      # Layout: a hash per queue and UTC hour (Layout::Untagged.queue_samples),
      # a field per minute of the hour ("0".."59") holding "<jobs>:<latency
      # ms>". Bounded: a minute has one field, whoever writes it, so a hash
      # holds 60 at most (a listpack Redis keeps small, about 1 KB), and
      # each write sets it to expire TTL (73 hours) later, as the hourly
      # metrics do: 73 hashes a queue at most, all gone 73 hours after its
      # queue was last sampled. At most MAX_QUEUES queues are sampled, the
      # deepest first.
      #
      # Each command touches one key: in cluster mode the pipeline sends
      # each to the node of its slot.
      module QueueSamples # :nodoc:
        RETENTION = Records::ExecutionMetrics::MINUTE_TTL
        # A hash's life from its first write: its hour, then RETENTION.
        TTL = RETENTION + 3600
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
        # own name, its latency the longest of theirs. The reads of the
        # Queues page: a few round trips, whatever the number of queues.
        def measure(store, now, lists: ->(queue) { [queue] })
          names = Jobs::Queues.names(store).flat_map { |queue| [queue, *lists.call(queue)] }.uniq
          rows = Jobs::Queues.summaries(store, names)
          queues = rows.group_by { |name, *| Layout::PartitionNames.base(name) }.map do |base, parts|
            [base, parts.sum { |_, size, *| size }, parts.map { |_, _, oldest, _| latency(oldest, now) }.max]
          end
          queues.max_by(MAX_QUEUES) { |_, size, _| size }
        end

        # Writes one minute's samples, in one round trip.
        def write(store, minute, samples)
          return if samples.empty?
          hour = Time.at(minute * 60)
          store.pipelined do |pipe|
            samples.each do |name, size, latency|
              key = Layout::Untagged.queue_samples(name, hour)
              pipe.call("HSET", key, (minute % 60).to_s, "#{size}:#{(latency * 1000).round}")
              pipe.call("EXPIRE", key, TTL)
            end
          end
        end

        # [[minute, jobs, latency seconds], ...] of `name` from minute `from`
        # to `to`, oldest first, in one round trip (a hash per hour); [] for
        # a queue never sampled. A field that is not a minute and two
        # numbers (another tool's) is left out.
        def read(store, name, from:, to:)
          hours = (from / 60..to / 60).to_a
          replies = store.pipelined { |pipe| hours.each { |hour| pipe.call("HGETALL", Layout::Untagged.queue_samples(name, Time.at(hour * 3600))) } }
          hours.zip(replies).flat_map do |hour, fields|
            fields = fields.each_slice(2).to_h if fields.is_a?(Array) # RESP2 answers pairs flat
            fields.filter_map do |field, value|
              size, ms = value.split(":", 2)
              next unless [field, size, ms].all? { |part| part&.match?(/\A\d+\z/) } && field.to_i < 60
              minute = (hour * 60) + field.to_i
              [minute, size.to_i, ms.to_i / 1000.0] if minute.between?(from, to)
            end.sort
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
