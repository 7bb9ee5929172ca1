# frozen_string_literal: true

module Deckhand
  module Periodic
    # Builds the job a periodic tick pushes, as a push from the application
    # would: the class's own options (queue, retry) when the class is loaded,
    # Active Job's wrapper for Active Job classes, client middleware. The
    # class is looked up now, when the tick fires; a class this process does
    # not know is pushed by name (another codebase may run it).
    #
    #   job = JobBuilder.new(config).build(entry)   # => {"class" => "NightlyReportJob", "jid" => ..., ...} or nil
    #   JobBuilder.new(config).encode(job)          # => the JSON payload, with enqueued_at
    #   JobBuilder.new(config).push_now(entry)      # => jid: pushed at once, as the application would
    class JobBuilder
      # Takes what a push would have written (Client.collecting).
      class Collector
        attr_reader :jobs

        def initialize = @jobs = []

        def collect(jobs, _ats) = @jobs.concat(jobs)
      end
      private_constant :Collector

      def initialize(config)
        @config = config
      end

      # The job Hash, or nil when a client middleware stopped it.
      def build(entry)
        collector = Collector.new
        Client.collecting(collector) { push(entry, constant(entry.klass)) }
        collector.jobs.first
      end

      # Pushes the entry's job at once, outside any tick ("enqueue now");
      # returns its jid, or nil when a client middleware stopped it.
      def push_now(entry)
        result = push(entry, constant(entry.klass))
        result.respond_to?(:provider_job_id) ? result.provider_job_id : result
      end

      # The queue the entry's job goes to: the entry's own, else its class's
      # (Active Job's queue_name too), else "default".
      def queue_of(entry)
        return entry.queue if entry.queue
        klass = constant(entry.klass)
        queue = if klass.respond_to?(:deckhand_options) then klass.deckhand_options["queue"]
        elsif klass.respond_to?(:queue_name) then klass.queue_name
        end
        (queue || "default").to_s
      end

      def encode(job)
        job["enqueued_at"] = Payload.now(@config.timestamps, clock: @config.store.clock)
        Payload.encode(job, max_bytes: @config.max_payload_bytes)
      end

      private

      def push(entry, klass)
        if defined?(::ActiveJob::Base) && klass.is_a?(Class) && klass < ::ActiveJob::Base
          return klass.set(entry.queue ? {queue: entry.queue} : {}).perform_later(*entry.args)
        end
        item = klass.respond_to?(:deckhand_options) ? klass.deckhand_options.merge(entry.options) : entry.options.dup
        item.delete("pool") # a periodic job runs on the Redis of the server that ticks it
        item["class"] = entry.klass
        item["args"] = entry.args
        item["queue"] = entry.queue if entry.queue
        Client.new(config: @config).push(item)
      end

      def constant(name)
        Object.const_get(name)
      rescue NameError
        nil
      end
    end
  end
end
