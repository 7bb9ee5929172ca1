# frozen_string_literal: true

module Deckhand
  module Server
    # The queue throttles in force in this process: the configuration's
    # (Config::Throttle), overridden queue by queue by those set at run time
    # in Redis (Store::Throttles), which the heartbeat reads every beat.
    # Fetchers read #limits before each round trip.
    #
    #   throttles = ThrottleLimits.new(config.throttle, logger: logger)
    #   throttles.update({"exports" => {"concurrency" => 5}})
    #   throttles.limits   # => {"api_calls" => #<Limit rate=20 ...>, "exports" => #<Limit concurrency=5>}
    class ThrottleLimits # :nodoc:
      attr_reader :limits

      def initialize(configured, logger:)
        @configured = configured.to_h
        @logger = logger
        @limits = @configured
        @overrides = {}
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
        @limits = limits.freeze
        @logger.info("queue throttles: #{describe}")
      end

      private

      def describe
        return "none" if @limits.empty?
        @limits.map { |queue, limit| "#{queue} #{limit.to_h.map { |k, v| "#{k}=#{v}" }.join(" ")}" }.join(", ")
      end
    end
  end
end
