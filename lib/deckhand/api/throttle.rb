# frozen_string_literal: true

require_relative "../store/features/throttles"
require_relative "published_throttles"

module Deckhand
  class API
    # One queue's throttle (docs/limits.md): the limit in force, what it uses
    # now, and run-time changes, stored in Redis and picked up by every
    # process at its next heartbeat.
    #
    #   throttle = api.throttle("exports")
    #   throttle.limit         # => {"concurrency" => 3} (nil: not throttled)
    #   throttle.held          # => 2 slots in use across the fleet
    #   throttle.set(concurrency: 5)
    #   throttle.set(rate: 20, per: :second)
    #   throttle.remove        # not throttled, whatever the configuration says
    #   throttle.reset         # back to the configuration
    #   throttle.source        # => :runtime, :servers or :local
    #
    # The limit in force is, first, the one set at run time; else the one the
    # live server processes publish with their heartbeat (their
    # configuration, PublishedThrottles); else this process's own
    # configuration (a dashboard loaded with the application's config while
    # no server runs).
    class Throttle
      attr_reader :queue

      # The queues throttled at run time, by the servers' configuration or
      # by this process's. processes: an API::ProcessSet already read.
      def self.all(config, processes: nil)
        overrides = Store::Features::Throttles.overrides(config.store)
        published = PublishedThrottles.new(processes || ProcessSet.new(config))
        names = config.throttle.to_h.keys | overrides.keys | published.queues
        throttles = names.sort.map { |name| new(name, config, overrides: overrides, published: published) }.select(&:limit)
        held = Store::Features::Throttles.held(config.store, throttles.map(&:queue), lists: ->(queue) { lists(config, published, queue) })
        throttles.each { |throttle| throttle.held = held[throttle.queue] }
      end

      # Every list of `queue`: its partitions as this process's configuration
      # sets them, else as the live servers publish them (a dashboard started
      # without the application's configuration).
      def self.lists(config, published, queue)
        return config.partitions.names(queue) if config.partitions.count(queue) > 1
        Store::Layout::PartitionNames.list(queue, published.partitions(queue))
      end

      # overrides: the run-time limits already read (Store::Features::Throttles.overrides);
      # published: the servers' (PublishedThrottles).
      def initialize(queue, config, overrides: nil, published: nil)
        @queue = queue.to_s
        @config = config
        @store = config.store
        @overrides = overrides
        @published = published
      end

      # The limits in force ("rate", "per", "concurrency"), or nil.
      def limit
        case source
        when :runtime then overrides[@queue].then { |override| override.empty? ? nil : override }
        when :servers then published[@queue]
        when :local then @config.throttle[@queue].to_h
        end
      end

      # Where the limit comes from: :runtime (set here or from the API, kept
      # in Redis), :servers (the live processes' configuration), :local
      # (this process's configuration only), or nil (not throttled).
      def source
        if overrides.key?(@queue) then :runtime
        elsif published[@queue] then :servers
        elsif @config.throttle[@queue] then :local
        end
      end

      # The live processes that publish the limit (their identities).
      def publishers = published.publishers(@queue)

      # True when live processes publish different limits for this queue.
      def disagree? = published.disagree?(@queue)

      # True when the limit comes from Redis, not the configuration.
      def changed? = overrides.key?(@queue)

      # Slots in use across the fleet (read with the list by Throttle.all); a
      # partitioned queue's partitions each count their own, added up here.
      def held = @held ||= Store::Features::Throttles.usage(@store, @queue, lists: lists)[:held]

      # Every list of the queue (Throttle.lists).
      def lists = self.class.lists(@config, published, @queue)

      attr_writer :held # :nodoc: Throttle.all reads every queue's in one round trip

      # Sets the queue's limit for the whole fleet, over what each process's configuration says.
      #
      #   api.throttle("exports").set(concurrency: 3)
      #   api.throttle("api").set(rate: 20, per: :second)
      #
      # @raise [ConfigError] naming a bad limit
      def set(**limits)
        limit = Config::Throttle.limit!(@queue, limits) # raises ConfigError naming the problem
        Config::Throttle.partitioned!(@queue, limit, lists.size) # each partition needs a slot of its own
        base = Store::Layout::PartitionNames.base(@queue)
        if base != @queue && self.class.lists(@config, published, base).size > 1 # the servers would ignore it
          raise ConfigError, "#{@queue.inspect} is a partition of queue #{base.inspect}: throttle #{base.inspect}, whose limit its partitions share"
        end
        Store::Features::Throttles.set(@store, @queue, limit.to_h)
        forget
      end

      # Lifts the queue's limit for the whole fleet, whatever the configurations say.
      def remove = Store::Features::Throttles.set(@store, @queue, {}).then { forget }

      # Forgets a limit set with #set or #remove: each process's configuration applies again.
      def reset = Store::Features::Throttles.reset(@store, @queue).then { forget }

      private

      def overrides = @overrides ||= Store::Features::Throttles.overrides(@store)

      def published = @published ||= PublishedThrottles.new(ProcessSet.new(@config))

      def forget
        @overrides = nil
        self
      end
    end
  end
end
