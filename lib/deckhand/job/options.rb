# frozen_string_literal: true

require "did_you_mean"
require_relative "../collapsing"

module Deckhand
  module Job
    # Validates job options where they are declared, so a typo fails at boot
    # rather than when the first job fails.
    module Options
      # The options of a class that sets none.
      DEFAULTS = {"retry" => true, "queue" => "default"}.freeze
      @defaults = DEFAULTS

      # The options every job class starts from: DEFAULTS, plus what drop-in
      # mode's `Sidekiq.default_job_options = {...}` added. Frozen; a change
      # replaces it, so a class reads it without a lock.
      def self.defaults = @defaults

      # Replaces the defaults whole (drop-in mode's Sidekiq.default_job_options,
      # a Hash an application may also take keys out of): DEFAULTS itself when
      # `options` holds nothing more.
      def self.replace_defaults(options)
        raise ArgumentError, "default job options must be a Hash, got #{options.class}" unless options.is_a?(Hash)
        copy = seconds(options.transform_keys(&:to_s))
        @defaults = (copy == DEFAULTS) ? DEFAULTS : copy.freeze
      end

      module_function

      # check: false stores the values as given (drop-in mode's
      # sidekiq_options, where options are an application's data, as in Sidekiq).
      def merge(current, options, owner, check: true)
        raise ArgumentError, "#{owner}: deckhand_options takes a Hash, got #{options.class}" unless options.is_a?(Hash)
        options = options.transform_keys(&:to_s)
        options.each { |key, value| check!(key, value, owner) } if check
        current.merge(seconds(options)).freeze
      end

      def check!(key, value, owner) # :nodoc:
        wrong = nil
        valid = case key
        when "queue", "retry_queue" then (value.is_a?(String) || value.is_a?(Symbol)) && !value.to_s.empty?
        when "retry" then value == true || value == false || (value.is_a?(Integer) && value >= 0)
        when "retry_for" then value.is_a?(Numeric) && value.positive?
        when "backtrace" then value == true || value == false || (value.is_a?(Integer) && value >= 0)
        when "dead" then value == true || value == false
        when "unique_for" then value == false || (value.respond_to?(:to_f) && !value.is_a?(String) && value.to_f.positive?)
        when "unique_until" then %w[success start].include?(value.to_s)
        when "on_conflict" then %w[raise].include?(value.to_s)
        when "expires_in" then value == false || (value.respond_to?(:to_f) && !value.is_a?(String) && value.to_f.positive?)
        when "encrypt" then value == true || value == false
        when "debounce", "dedupe" then (wrong = Collapsing.problem(key, value)).nil?
        when "max_iteration_runtime" then value.is_a?(Numeric) && value.positive?
        when "pool" then Client::Target.for(value, "#{owner}: pool:")
        when "partition_by" then value.respond_to?(:call) || value.is_a?(String) || value.is_a?(Symbol) || value.is_a?(Integer)
        when "tenant" then Config::FairQueues.tenant!(value, "#{owner}: tenant:")
        when "priority" then value.nil? || (value.is_a?(Integer) && Payload::PRIORITIES.cover?(value))
        when "profile" then value == false || (value.is_a?(String) && Profiler::TOKEN.match?(value))
        when "profiler_options" then value.is_a?(Hash)
        when "result" then value == false || value == true || result_ttl(value)&.positive?
        when "chunk" then Chunk.options?(value)
        when "class", "args", "jid" then raise ArgumentError, "#{owner}: #{key} is set per push, not in deckhand_options"
        else true
        end
        raise ArgumentError, "#{owner}: #{key}: #{value.inspect} is not valid; #{wrong || HINTS.fetch(key)}" unless valid
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

      # The known job options, each with the fix its error names for a bad value.
      HINTS = {
        "queue" => "give a non-empty queue name",
        "retry_queue" => "give a non-empty queue name",
        "retry" => "use true (25 retries), false (no retries) or an Integer count",
        "retry_for" => "give a number of seconds",
        "backtrace" => "use true, false or a number of lines",
        "dead" => "use true (failed jobs go to the dead set) or false",
        "unique_for" => "give the lock's lifetime in seconds (or an ActiveSupport::Duration), or false to push without a lock",
        "unique_until" => "use :success (the default: held until the job succeeds or dies) or :start (released just before perform)",
        "on_conflict" => "use :raise (Deckhand::NotUnique), or leave it unset for a duplicate push to return nil",
        "expires_in" => "give a number of seconds (or an ActiveSupport::Duration) after which an unstarted job is dropped, or false",
        "encrypt" => "use true (the last argument, a Hash, is stored encrypted) or false",
        "debounce" => "give {key:, wait:}: a burst of pushes of one key runs once, wait seconds after the last (docs/debounce.md)",
        "dedupe" => "give {key:, ttl:, on_conflict: :keep | :replace | :extend}: one waiting job per key (docs/debounce.md)",
        "max_iteration_runtime" => "give a number of seconds an iterable job runs before it stops to resume later",
        "pool" => "give another Redis as a Deckhand::Store, a redis-client options Hash or a URL (docs/sharding.md)",
        "partition_by" => "give a key (String, Symbol or Integer) or a callable taking the job's args, like ->(args) { args.first } (docs/cluster.md)",
        "tenant" => "name the tenant whose fair share the job takes (docs/fair-queues.md)",
        "priority" => "give an Integer from -100 (runs first) to 100 (runs last), or nil for the queue's own order (docs/priority.md)",
        "profile" => "give a token naming the profile (letters, digits, _ . @ -, up to 64), like \"nightly\", or false (docs/profiling.md)",
        "profiler_options" => "give a Hash of the profiler's options, like {mode: :cpu, interval: 500} (docs/profiling.md)",
        "result" => "use {ttl: seconds} (how long its return value is kept for Deckhand::JobResult.wait), true (a day) or false (docs/workflows.md)",
        "chunk" => "give {size: jobs a call (1 to #{Chunk::MAX_SIZE}), wait: seconds to gather them (0 to #{Chunk::MAX_WAIT})}, like {size: 1000, wait: 0.5} (docs/chunks.md)"
      }.freeze

      # Durations travel as plain seconds (JSON carries no ActiveSupport), and
      # symbols as strings, which is how they come back from Redis.
      def seconds(options)
        options.to_h do |key, value|
          case key
          when "unique_for", "expires_in" then [key, value && plain(value.to_f)]
          when "unique_until", "on_conflict" then [key, value.to_s]
          when "debounce", "dedupe" then [key, (value.is_a?(Hash) || value == false) ? Collapsing.normalize(key, value) : value]
          # A Duration (48.hours) would go to JSON as a String, which the retry handler cannot compare.
          when "retry_for" then [key, value.is_a?(Numeric) ? plain(value.to_f) : value]
          when "pool" then [key, Client::Target.for(value)] # shared, and no password in inspect
          # {"ttl" => seconds} in the job, as the server reads it back from JSON.
          when "result" then [key, value && {"ttl" => (value == true) ? RESULT_TTL : plain(result_ttl(value))}]
          when "chunk" then [key, value && Chunk.options(value)]
          else [key, value]
          end
        end
      end

      def plain(float) = (float % 1).zero? ? float.to_i : float # :nodoc:

      # A day: how long `result: true` keeps a job's return value.
      RESULT_TTL = 86_400

      # The seconds of a `result:` option ({ttl: 60}, {"ttl" => 60}), or nil.
      def result_ttl(value) # :nodoc:
        ttl = value.is_a?(Hash) ? (value[:ttl] || value["ttl"]) : nil
        ttl.to_f if ttl.respond_to?(:to_f) && !ttl.is_a?(String)
      end
    end
  end
end
