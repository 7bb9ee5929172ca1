# frozen_string_literal: true

module Deckhand
  module Server
    module Fetch
      # The queue throttles in force in this process: the configuration's
      # (Config::Throttle), overridden queue by queue by those set at run time
      # in Redis (Store::Features::Throttles), which the heartbeat reads every beat.
      # Fetchers read #limits before each round trip, by list: a partitioned
      # queue's limit is split over its partitions (Config::Throttle::Limit#share),
      # each list enforcing its own share in its own throttle hash, as fetch.lua
      # sees one list at a time (and in cluster mode one slot).
      #
      #   throttles = ThrottleLimits.new(config.throttle, logger: logger, partitions: config.partitions)
      #   throttles.update({"exports" => {"concurrency" => 5}})
      #   throttles.limits   # => {"api_calls" => #<Limit rate=20 ...>, "exports" => #<Limit concurrency=5>}
      #   # with partitions {"exports" => 2}: {..., "exports" => #<Limit concurrency=3>, "exports~p1" => #<Limit concurrency=2>}
      class ThrottleLimits # :nodoc:
        NAMES = Store::Layout::PartitionNames

        # List name => the Limit that list enforces.
        attr_reader :limits

        def initialize(configured, logger:, partitions: Config::Partitions.new)
          @configured = configured.to_h
          @logger = logger
          @partitions = partitions
          @overrides = {}
          @limits = by_list(@configured)
        end

        def empty? = @limits.empty?

        # overrides: queue => limits Hash ({} for "not throttled").
        def update(overrides)
          return if overrides == @overrides
          @overrides = overrides
          limits = @configured.dup
          overrides.each do |queue, spec|
            if spec.empty?
              limits.delete(queue)
            else
              limits[queue] = Config::Throttle.limit!(queue, spec)
            end
          rescue ConfigError => e
            @logger.error("ignoring the throttle set at run time for queue #{queue}: #{e.message}")
          end
          @limits = by_list(limits)
          @logger.info("queue throttles: #{describe(limits)}")
        end

        private

        # Each queue's limit as its lists enforce it. A limit set at run time
        # on one partition's name is no queue's: the partitions share the
        # queue's limit or none.
        def by_list(queues)
          own = queues.reject { |name, _| NAMES.partition?(name) && @partitions.count(NAMES.base(name)) > 1 }
          own.flat_map { |queue, limit| (@partitions.count(queue) > 1) ? split(queue, limit) : [[queue, limit]] }.to_h.freeze
        end

        def split(queue, limit)
          count = @partitions.count(queue)
          check_split(queue, limit, count)
          @partitions.names(queue).each_with_index.map { |name, index| [name, limit.share(index, count)] }
        end

        # A limit set at run time (the configuration and the API refuse it)
        # may leave a partition no slot; a share of 0 would be uncapped.
        def check_split(queue, limit, count)
          Config::Throttle.partitioned!(queue, limit, count)
        rescue ConfigError => e
          @logger.error("the throttle set at run time for queue #{queue} cannot be split as set: #{e.message}; " \
            "meanwhile each partition runs 1 at a time (#{count} at once in all)")
        end

        def describe(limits)
          return "none" if limits.empty?
          limits.map { |queue, limit| "#{queue} #{limit.to_h.map { |k, v| "#{k}=#{v}" }.join(" ")}" }.join(", ")
        end
      end
    end
  end
end
