# frozen_string_literal: true

module Deckhand
  class Config
    # The writers of the plain number settings, each checked for its type and
    # range where it is set, naming the bad value:
    #
    #   config.concurrency = 20
    #   config.concurrency = 0   # => ConfigError: concurrency must be an Integer from 1 to 1000, got 0
    module NumericSettings
      # name => [type, allowed range]
      NUMBERS = {
        concurrency: [Integer, 1..1000],
        timeout: [Numeric, 0..3600],
        max_retries: [Integer, 0..1000],
        dead_max_jobs: [Integer, 0..100_000_000],
        dead_timeout: [Numeric, 0..(10 * 365 * 86_400)],
        max_payload_bytes: [Integer, 64..(512 * 1024 * 1024)],
        backtrace_lines: [Integer, 0..1000],
        heartbeat_interval: [Numeric, 0.05..60],
        heartbeat_ttl: [Integer, 1..3600],
        reaper_interval: [Numeric, 0.05..600],
        hung_after: [Numeric, 1..86_400],
        reliable_push_limit: [Integer, 1..10_000_000],
        max_recoveries: [Integer, 1..1000],
        scheduler_interval: [Numeric, 0.01..600],
        prefetch: [Numeric, 0..10],
        fetch_window: [Numeric, 0..1],
        eviction_check_interval: [Numeric, 0.05..3600],
        cancel_grace: [Numeric, 0..86_400]
      }.freeze

      NUMBERS.each do |name, (type, range)|
        define_method(:"#{name}=") do |value|
          change!(name)
          unless value.is_a?(type) && range.cover?(value)
            kind = (type == Integer) ? "an Integer" : "a number"
            raise ConfigError, "#{name} must be #{kind} from #{range.min} to #{range.max}, got #{value.inspect}"
          end
          instance_variable_set(:"@#{name}", value)
        end
      end

      # Seconds each server waits on average between two polls of the
      # schedule and retry sets, however many processes run (Sidekiq's
      # poll_interval_average); nil, the default: scheduler_interval times
      # the live processes, so the fleet polls about every scheduler_interval.
      #
      #   config.scheduler_poll_average = 15
      def scheduler_poll_average=(seconds)
        change!(:scheduler_poll_average)
        if !seconds.nil? && !(seconds.is_a?(Numeric) && (0.01..3600).cover?(seconds))
          raise ConfigError, "scheduler_poll_average must be a number of seconds from 0.01 to 3600, or nil (scaled by the processes), got #{seconds.inspect}"
        end
        @scheduler_poll_average = seconds
      end

      # Seconds an iterable job runs before it stops and resumes later, for
      # the classes that set no max_iteration_runtime of their own; nil: no limit.
      def max_iteration_runtime=(seconds)
        change!(:max_iteration_runtime)
        if !seconds.nil? && !(seconds.is_a?(Numeric) && seconds.positive?)
          raise ConfigError, "max_iteration_runtime must be a positive number of seconds or nil, got #{seconds.inspect}"
        end
        @max_iteration_runtime = seconds
      end
    end
  end
end
