# frozen_string_literal: true

module Deckhand
  class Config
    # Queue throttles for the whole fleet, validated where set. `rate` paces
    # how fast jobs leave a queue (`per` :second, :minute, :hour or seconds);
    # `concurrency` caps how many of its jobs run at once across every
    # process. Both are enforced inside the reliable fetch (docs/limits.md);
    # a partitioned queue's are split over its partitions (Limit#share), so
    # its concurrency must be at least its number of partitions.
    #
    #   Deckhand.configure do |c|
    #     c.throttle = {"api_calls" => {rate: 20, per: :second}, "exports" => {concurrency: 3}}
    #   end
    #   # config/deckhand.yml:
    #   #   throttle:
    #   #     api_calls: {rate: 20, per: second}
    #   #     exports: {concurrency: 3}
    class Throttle
      # Seconds of each `per:` named by a word.
      PERIODS = {"second" => 1, "minute" => 60, "hour" => 3600, "day" => 86_400}.freeze
      # The keys of one queue's limit.
      KEYS = %i[rate per concurrency].freeze

      # One queue's limits: rate per `per` seconds (nil: unpaced) and
      # concurrency (nil: uncapped).
      Limit = Struct.new(:rate, :per, :concurrency) do
        # Jobs per millisecond, for the fetch script (0: unpaced).
        def rate_per_ms = rate ? rate.to_f / (per * 1000) : 0

        # How many jobs may leave at once: a tenth of a second's worth, at least one.
        def burst = rate ? [(rate.to_f / per / 10).ceil, 1].max : 0

        # The limit as a Hash, without its unset keys.
        def to_h = {"rate" => rate, "per" => per, "concurrency" => concurrency}.compact

        # What partition `index` of `count` enforces on its own list: the
        # concurrency dealt out so the shares add up to it (never 0, which
        # the fetch script reads as uncapped), the rate divided evenly.
        def share(index, count)
          return self if count == 1
          split = concurrency && [concurrency / count + ((index < concurrency % count) ? 1 : 0), 1].max
          self.class.new(rate && rate.to_f / count, per, split).freeze
        end
      end

      # A Limit from a Hash like {rate: 20, per: :second} or {concurrency: 3}
      # (string keys and values too, as YAML and JSON give them).
      def self.limit!(queue, spec)
        unless spec.is_a?(Hash) && !spec.empty?
          raise ConfigError, "throttle for queue #{queue.inspect} must be a Hash like {rate: 20, per: :second} or {concurrency: 3}, got #{spec.inspect}"
        end
        spec = spec.transform_keys(&:to_sym)
        unknown = spec.keys - KEYS
        raise ConfigError, "throttle for queue #{queue.inspect}: unknown key #{unknown.first.inspect}; known: #{KEYS.join(", ")}" unless unknown.empty?
        rate = positive!(queue, :rate, spec[:rate])
        concurrency = positive!(queue, :concurrency, spec[:concurrency])
        raise ConfigError, "throttle for queue #{queue.inspect} needs rate: or concurrency:" unless rate || concurrency
        raise ConfigError, "throttle for queue #{queue.inspect}: per: goes with rate:" if spec.key?(:per) && !rate
        Limit.new(rate, rate && period!(queue, spec.fetch(:per, :second)), concurrency).freeze
      end

      # Refuses a concurrency the partitions of `queue` cannot share: each of
      # its `count` lists needs at least one slot of its own.
      def self.partitioned!(queue, limit, count)
        return limit unless limit.concurrency && limit.concurrency < count
        raise ConfigError, "throttle for queue #{queue.inspect}: concurrency #{limit.concurrency} cannot be split over its #{count} partitions " \
          "(each partition runs its own share); raise concurrency to at least #{count} or use fewer partitions"
      end

      def self.positive!(queue, key, value) # :nodoc:
        return nil if value.nil?
        return value if value.is_a?(Integer) && value.positive?
        raise ConfigError, "throttle for queue #{queue.inspect}: #{key} must be a positive Integer, got #{value.inspect}"
      end

      # Seconds of `per` (a word of PERIODS or a positive number).
      #
      # @raise [ConfigError] naming the queue and the value
      def self.period!(queue, per)
        return per if per.is_a?(Numeric) && per.positive?
        PERIODS.fetch(per.to_s) do
          raise ConfigError, "throttle for queue #{queue.inspect}: per must be second, minute, hour, day or a number of seconds, got #{per.inspect}"
        end
      end

      def initialize(queues = {})
        raise ConfigError, "throttle must be a Hash of queue => limits, like {\"exports\" => {concurrency: 3}}, got #{queues.inspect}" unless queues.is_a?(Hash)
        @limits = queues.to_h do |queue, spec|
          name = queue.to_s
          raise ConfigError, "throttle: a queue name must not be empty" if name.empty?
          [name.freeze, self.class.limit!(name, spec)]
        end.freeze
        freeze
      end

      # The limit of `queue`, or nil.
      def [](queue) = @limits[queue]

      # Whether no queue is throttled.
      def empty? = @limits.empty?

      # queue => Limit.
      def to_h = @limits
    end
  end
end
