# frozen_string_literal: true

require "json"
require "securerandom"
require_relative "payload/validator"
require_relative "payload/backtrace"
require_relative "payload/decoder"

module Deckhand
  # The job JSON, exactly as Sidekiq writes it, so Sidekiq clients and servers in
  # any language share queues with Deckhand:
  #
  #   {"class":"WelcomeJob","args":[42],"queue":"default","retry":true,
  #    "jid":"b4a577edbccf1d805744efa9","created_at":1732000000000,"enqueued_at":1732000000000}
  #
  # Timestamps are Integer epoch milliseconds (Sidekiq 8) or Float epoch seconds
  # (Sidekiq 7, `config.timestamps = :float`). Both are read.
  module Payload
    module_function

    # A 24-hex-character job id, as Sidekiq makes them.
    def jid = SecureRandom.hex(12)

    # `count` jids from one read of the random source.
    def jids(count)
      hex = SecureRandom.random_bytes(12 * count).unpack1("H*")
      Array.new(count) { |i| hex[i * 24, 24] }
    end

    class << self
      # This host's "now" for `now` without a fleet clock: nil reads the
      # system's real-time clock; a callable returning epoch seconds stands
      # in for it (drop-in mode as Sidekiq 7.3: Time.now, as Sidekiq 7.3
      # dates a push).
      attr_accessor :host_clock
    end

    # The current time in the configured wire format: by `clock` (the
    # fleet's, Store::Records::Clock) when given, else by this host's.
    def now(format = :millis, clock: nil)
      if clock
        (format == :millis) ? clock.now_ms : clock.now
      elsif (host = Payload.host_clock)
        seconds = host.call
        (format == :millis) ? (seconds * 1000).floor : seconds
      elsif format == :millis
        ::Process.clock_gettime(::Process::CLOCK_REALTIME, :millisecond)
      else
        ::Process.clock_gettime(::Process::CLOCK_REALTIME)
      end
    end

    # Reads a wire timestamp (Float seconds or Integer milliseconds) as a Time.
    def to_time(value)
      case value
      when Integer then Time.at(value / 1000, value % 1000, :millisecond)
      when Float then Time.at(value)
      when String then to_time(value.include?(".") ? Float(value) : Integer(value))
      end
    rescue ArgumentError
      nil
    end

    # Epoch seconds as a Float, from either encoding.
    def to_epoch(value)
      case value
      when Integer then value / 1000.0
      when Float then value
      end
    end

    # Validates an item and fills in what Sidekiq's format requires. A job
    # class given as a Class brings its deckhand_options (queue, retry...),
    # the item's own keys winning, as Sidekiq's Client.push does. Raises
    # Deckhand::InvalidJob naming the problem and the fix.
    def normalize(item, timestamps: :millis)
      raise InvalidJob, "a job must be a Hash like {\"class\" => \"MyJob\", \"args\" => [1]}, got #{item.class}" unless item.is_a?(Hash)
      job = item.transform_keys(&:to_s)
      klass = job["class"]
      if klass.is_a?(Class)
        # A job class's options under the item's own, as a push through the class makes them.
        job = klass.deckhand_options.except("pool").merge(job) if klass.respond_to?(:deckhand_options)
        job["class"] = klass = klass.name
      elsif !Job::Options.defaults.equal?(Job::Options::DEFAULTS)
        # A class by name takes the defaults drop-in mode's Sidekiq.default_job_options= set.
        job = Job::Options.defaults.merge(job)
      end
      raise InvalidJob, "job class must be a class or its name as a String, got #{klass.inspect}" unless klass.is_a?(String) && !klass.empty?
      queue = job["queue"] = (job["queue"] || "default").to_s
      raise InvalidJob, "queue name for #{klass} cannot be empty; leave queue unset to use \"default\"" if queue.empty?
      job["args"] = [] unless job.key?("args")
      Validator.check_args!(job["args"], klass)
      priority!(job["priority"], klass) unless job["priority"].nil?
      job["retry"] = true unless job.key?("retry")
      job["jid"] ||= jid
      job["created_at"] ||= now(timestamps)
      job
    end

    # The priorities a job may have (docs/priority.md): lower runs first, 0
    # (or none) waits in the queue itself. A bound, since each level a queue
    # uses is one more list its fetch reads.
    PRIORITIES = (-100..100)

    def priority!(priority, klass)
      return if priority.is_a?(Integer) && PRIORITIES.cover?(priority)
      raise InvalidJob, "priority for #{klass} must be an Integer from #{PRIORITIES.min} (runs first) to " \
        "#{PRIORITIES.max} (runs last), or nil for the queue's own order; got #{priority.inspect}"
    end

    # Encodes a normalized job, enforcing the size limit.
    def encode(job, max_bytes:)
      json = begin
        JSON.generate(job)
      rescue JSON::GeneratorError, EncodingError => e # args were checked: an option, or what middleware added
        raise InvalidJob, "#{job["class"]} cannot be written as JSON (#{e.message[0, 120]}): a key of the job holds " \
          "what JSON cannot carry (NaN, Infinity, text that is not UTF-8); give it JSON-native values"
      end
      if json.bytesize > max_bytes
        raise InvalidJob, "#{job["class"]} payload is #{json.bytesize} bytes, over the #{max_bytes}-byte limit " \
          "(max_payload_bytes): store large data elsewhere (a database row, an object store) and pass its id"
      end
      json
    end

    def decode(raw) = Decoder.decode(raw)
  end
end
