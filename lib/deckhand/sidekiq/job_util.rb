# frozen_string_literal: true

require "securerandom"

module Sidekiq
  # Sidekiq's checks and normal form of a job Hash, for plugins that build
  # or push jobs themselves (`include Sidekiq::JobUtil`): the same rules
  # Deckhand's client applies on a push, in Sidekiq's words.
  #
  #   include Sidekiq::JobUtil
  #   item = normalize_item("class" => HardJob, "args" => [1])
  #   item["jid"]         # => "2b2b4f5d..." (24 hex characters)
  #   item["queue"]       # => HardJob's queue, as a String
  #   item["created_at"]  # => Integer milliseconds
  #   verify_json(item)   # ArgumentError for arguments JSON would change (per Sidekiq.strict_args!)
  module JobUtil
    # Keys never written to Redis (none, as in Sidekiq 8).
    TRANSIENT_ATTRIBUTES = []

    def validate(item)
      unless item.is_a?(Hash) && item.key?("class") && item.key?("args")
        raise ArgumentError, "Job must be a Hash with 'class' and 'args' keys: `#{item}`"
      end
      args, klass = item.values_at("args", "class")
      raise ArgumentError, "Job args must be an Array: `#{item}`" unless args.is_a?(Array) || args.is_a?(Enumerator::Lazy)
      raise ArgumentError, "Job class must be either a Class or String representation of the class name: `#{item}`" unless klass.is_a?(Class) || klass.is_a?(String)
      raise ArgumentError, "Job 'at' must be a Numeric timestamp: `#{item}`" if item.key?("at") && !item["at"].is_a?(Numeric)
      raise ArgumentError, "Job tags must be an Array: `#{item}`" if item["tags"] && !item["tags"].is_a?(Array)
      raise ArgumentError, "retry_for must be a relative amount of time, e.g. 48.hours `#{item}`" if item["retry_for"] && item["retry_for"] > 1_000_000_000
    end

    def verify_json(item)
      mode = Deckhand::DropIn::StrictArgs.mode
      return unless mode == :raise || mode == :warn
      found = json_unsafe?(item["args"])
      return if found.nil?
      message = Deckhand::DropIn::StrictArgs.message(item["wrapped"] || item["class"], [found])
      (mode == :raise) ? raise(ArgumentError, message) : warn(message)
    end

    # The job as it is pushed: its class's sidekiq_options (and a wrapped
    # class's) under what the item says, a jid, String class and queue,
    # created_at in milliseconds.
    def normalize_item(item)
      validate(item)
      defaults = normalized_hash(item["class"])
      wrapped = item["wrapped"]
      defaults = defaults.merge(wrapped.get_sidekiq_options) if wrapped.respond_to?(:get_sidekiq_options)
      item = defaults.merge(item)
      raise ArgumentError, "Job must include a valid queue name" if item["queue"].nil? || item["queue"] == ""
      TRANSIENT_ATTRIBUTES.each { |key| item.delete(key) }
      item["jid"] ||= SecureRandom.hex(12)
      item["class"] = item["class"].to_s
      item["queue"] = item["queue"].to_s
      item["retry_for"] = item["retry_for"].to_i if item["retry_for"]
      item["created_at"] ||= now_in_millis
      item
    end

    def now_in_millis = ::Process.clock_gettime(::Process::CLOCK_REALTIME, :millisecond)

    # The options a job of `item_class` starts from.
    def normalized_hash(item_class)
      return Sidekiq.default_job_options unless item_class.is_a?(Class)
      unless item_class.respond_to?(:get_sidekiq_options)
        raise ArgumentError, "Message must include a Sidekiq::Job class, not class name: #{item_class.ancestors.inspect}"
      end
      item_class.get_sidekiq_options
    end

    private

    # The first value JSON would not carry unchanged, or nil.
    def json_unsafe?(value) = Deckhand::DropIn::StrictArgs.unsafe(value)
  end
end
