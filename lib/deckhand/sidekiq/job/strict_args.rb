# frozen_string_literal: true

require "json"

module Deckhand
  module DropIn
    # Sidekiq's `strict_args!` in drop-in mode. By default (:raise), as in
    # Sidekiq 7, a push whose arguments JSON would not carry unchanged raises
    # ArgumentError naming the value: a Symbol, a Date, a Hash with Symbol
    # keys, a Hash or Array subclass. An application that turned the check
    # off (`Sidekiq.strict_args!(false)`, or :warn to log each) gets what
    # Sidekiq then pushes: the arguments as JSON makes them (:a becomes "a").
    #
    #   Sidekiq.strict_args!(false)
    #   StrictArgs.apply([:a, Date.new(2021, 1, 1)], "HardJob")   # => ["a", "2021-01-01"]
    module StrictArgs
      MODES = [:raise, :warn, false].freeze
      NATIVE = "nil, true, false, Integer, Float, String, and Arrays and Hashes with String keys of those"

      @mode = :raise

      class << self
        # Sidekiq keeps the mode in Sidekiq::Config::DEFAULTS, where code
        # (Sidekiq's own tests among it) reads and sets it: so does drop-in mode.
        def mode = defined?(::Sidekiq::Config::DEFAULTS) ? ::Sidekiq::Config::DEFAULTS[:on_complex_arguments] : @mode

        def mode=(mode)
          mode = :raise if mode == true
          raise ArgumentError, "Sidekiq.strict_args! takes :raise, :warn or false, got #{mode.inspect}" unless MODES.include?(mode)
          @mode = mode
          ::Sidekiq::Config::DEFAULTS[:on_complex_arguments] = mode if defined?(::Sidekiq::Config::DEFAULTS)
        end

        # The first value in `value` JSON would not carry unchanged, or nil.
        def unsafe(value) = offender(value)&.first

        # The arguments to push for `klass` (its name), or ArgumentError.
        def apply(args, klass)
          return args unless args.is_a?(Array)
          found = offender(args)
          return args if found.nil?
          raise ArgumentError, message(klass, found) if mode == :raise
          Deckhand.config.logger.warn(message(klass, found)) if mode == :warn
          JSON.parse(JSON.generate(args))
        end

        def message(klass, (value))
          "Job arguments to #{klass} must be native JSON types, but #{value.inspect[0, 80]} is a #{value.class}: " \
            "pass #{NATIVE} (Sidekiq.strict_args!(false) pushes what JSON makes of them instead)"
        end

        private

        # The first value JSON would change, as [value] (so nil can be one), or nil.
        def offender(value)
          case value
          when String, Integer, true, false, nil then nil
          when Float then value.finite? ? nil : [value]
          when Array
            return [value] unless value.instance_of?(Array)
            value.each { |item| found = offender(item) and return found }
            nil
          when Hash
            return [value] unless value.instance_of?(Hash)
            value.each do |key, item|
              return [key] unless key.is_a?(String)
              found = offender(item) and return found
            end
            nil
          else [value]
          end
        end
      end
    end
  end
end
