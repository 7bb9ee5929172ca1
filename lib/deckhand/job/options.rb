# frozen_string_literal: true

require "did_you_mean"

module Deckhand
  module Job
    # Validates job options where they are declared, so a typo fails at boot
    # rather than when the first job fails.
    module Options
      DEFAULTS = {"retry" => true, "queue" => "default"}.freeze

      module_function

      def merge(current, options, owner)
        raise ArgumentError, "#{owner}: deckhand_options takes a Hash, got #{options.class}" unless options.is_a?(Hash)
        options = options.transform_keys(&:to_s)
        options.each { |key, value| check!(key, value, owner) }
        current.merge(options).freeze
      end

      def check!(key, value, owner)
        valid = case key
        when "queue", "retry_queue" then (value.is_a?(String) || value.is_a?(Symbol)) && !value.to_s.empty?
        when "retry" then value == true || value == false || (value.is_a?(Integer) && value >= 0)
        when "retry_for" then value.is_a?(Numeric) && value.positive?
        when "backtrace" then value == true || value == false || (value.is_a?(Integer) && value >= 0)
        when "dead" then value == true || value == false
        when "class", "args", "jid" then raise ArgumentError, "#{owner}: #{key} is set per push, not in deckhand_options"
        else true
        end
        raise ArgumentError, "#{owner}: #{key}: #{value.inspect} is not valid; #{HINTS.fetch(key)}" unless valid
      end

      # What `set` may change per push: the options above, and any option the
      # class declared in deckhand_options (your middleware's own).
      def check_set!(options, klass)
        declared = klass.deckhand_options.keys
        options.each_key do |key|
          next if HINTS.key?(key) || declared.include?(key)
          near = DidYouMean::SpellChecker.new(dictionary: HINTS.keys + declared).correct(key).first
          raise ArgumentError, "#{klass}.set: unknown option #{key.inspect}#{" (did you mean #{near.inspect}?)" if near}; " \
            "known: #{(HINTS.keys + declared).uniq.join(", ")}. An option of your own (for a middleware) must first be " \
            "declared in deckhand_options"
        end
      end

      HINTS = {
        "queue" => "give a non-empty queue name",
        "retry_queue" => "give a non-empty queue name",
        "retry" => "use true (25 retries), false (no retries) or an Integer count",
        "retry_for" => "give a number of seconds",
        "backtrace" => "use true, false or a number of lines",
        "dead" => "use true (failed jobs go to the dead set) or false"
      }.freeze
    end
  end
end
