# frozen_string_literal: true

require "zlib"
require_relative "../store/layout/partition_names"

module Deckhand
  class Config
    # Partitioned queues: one hot queue spread over several lists, so that in
    # cluster mode it uses several primaries (docs/cluster.md, "Partitioned
    # queues"). Clients with the setting push round-robin over the partitions,
    # or by a partition key (`partition_by:`) so related jobs keep their order
    # in one partition; servers fetch from every partition of a queue they
    # work, in rotation. Clients and servers must agree on the setting.
    #
    #   Deckhand.configure { |c| c.partitions = {"default" => 6} }
    #   config.partitions.names("default")          # => ["default", "default~p1", ..., "default~p5"]
    #   config.partitions.route("default")          # => the next partition, round-robin
    #   config.partitions.route("default", "acct-7") # => always the same partition for "acct-7"
    #
    # The round-robin counters are the one mutable part, behind a mutex:
    # the setting itself is frozen.
    class Partitions
      # The most partitions a queue may have.
      MAX = 64
      # How a partition's list is named.
      NAMES = Store::Layout::PartitionNames

      def initialize(queues = {})
        unless queues.is_a?(Hash)
          raise ConfigError, "partitions must be a Hash of queue => number of partitions, like {\"default\" => 6}, got #{queues.inspect}"
        end
        @counts = queues.to_h { |queue, count| check(queue.to_s, count) }.freeze
        @names = @counts.to_h { |queue, count| [queue, NAMES.list(queue, count)] }.freeze
        @turns = Hash.new(0)
        @lock = Mutex.new
      end

      # Whether no queue is partitioned.
      def empty? = @counts.empty?

      # queue => number of partitions.
      def to_h = @counts

      # How many lists `queue` spreads over (1: not partitioned).
      def count(queue) = @counts.fetch(queue, 1)

      # Every list of `queue`, partition 0 (the queue's own) first.
      def names(queue) = @names.fetch(queue) { [queue] }

      # The list a job pushed to `queue` goes to: the partition `key` hashes
      # to (CRC32, the same in every process), else the next in turn.
      def route(queue, key = nil)
        names = @names[queue] or return queue
        return names[Zlib.crc32(key.to_s) % names.size] unless key.nil?
        names[@lock.synchronize { @turns[queue] += 1 } % names.size]
      end

      # Jobs pushed to `queue` in one round trip, dealt over its partitions in
      # turn: {list name => [payload, ...]}.
      def spread(queue, payloads)
        names = @names[queue] or return {queue => payloads}
        start = @lock.synchronize { (@turns[queue] += payloads.size) - payloads.size + 1 }
        dealt = Hash.new { |hash, name| hash[name] = [] }
        payloads.each_with_index { |payload, i| dealt[names[(start + i) % names.size]] << payload }
        dealt
      end

      # A server capsule's queues with each partitioned queue in place of its
      # partitions, which share its weight (scaled to whole numbers); `capsule`
      # itself when it works no partitioned queue.
      def expand(capsule)
        return capsule if capsule.queues.none? { |queue| @counts.key?(queue) }
        entries = capsule.strict? ? strict(capsule) : weighted(capsule)
        Capsule.new(capsule.name, concurrency: capsule.concurrency, queues: entries, fibers: capsule.fibers?)
      end

      private

      def strict(capsule) = capsule.queues.flat_map { |queue| names(queue) }

      def weighted(capsule)
        scale = capsule.queues.map { |queue| count(queue) }.reduce(1, :lcm)
        capsule.queues.flat_map do |queue|
          share = capsule.weights.fetch(queue) * scale / count(queue)
          names(queue).map { |name| [name, share] }
        end
      end

      def check(queue, count)
        raise ConfigError, "partitions: a queue name must not be empty" if queue.empty?
        if queue.include?("~")
          raise ConfigError, "partitions: queue #{queue.inspect} cannot be partitioned: \"~\" is kept for partitions' names (\"#{queue}~p1\"); rename the queue"
        end
        unless count.is_a?(Integer) && count.between?(1, MAX)
          raise ConfigError, "partitions for queue #{queue.inspect} must be a whole number from 1 to #{MAX} (1: not partitioned), got #{count.inspect}"
        end
        [queue.freeze, count]
      end
    end
  end
end
