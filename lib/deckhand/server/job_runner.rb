# frozen_string_literal: true

require_relative "retry_handler"

module Deckhand
  module Server
    # Runs one fetched job: decode, find the class, server middleware, perform,
    # then settle the outcome. Success is acknowledged through the fetcher (in a
    # batch); a failure's retry or dead record is written together with the
    # acknowledgement in one transaction, so a job is never acknowledged before
    # its outcome is safely in Redis.
    class JobRunner
      def initialize(config:, store:, inflight:, fetcher:, stats:)
        @config = config
        @logger = config.logger
        @middleware = config.server_middleware
        @fetcher = fetcher
        @stats = stats
        @retries = RetryHandler.new(config: config, store: store, inflight: inflight)
        @classes = {}
        @classes_lock = Mutex.new
      end

      def run(unit)
        job = decode(unit) or return
        tid = Logging::Formatters.tid
        @stats.started(tid, unit.queue, unit.payload)
        failed = true
        Thread.current[:deckhand_job] = job # logged as class=... jid=...
        failed = !perform(unit, job)
      ensure
        Thread.current[:deckhand_job] = nil
        @stats.finished(tid, failed) if tid
      end

      private

      def perform(unit, job)
        started = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)
        klass = nil
        begin
          klass = constantize(job["class"])
          instance = klass.new
          instance.jid = job["jid"] if instance.respond_to?(:jid=)
          instance.deckhand_payload = job if instance.respond_to?(:deckhand_payload=)
          if @middleware.empty?
            instance.perform(*job["args"])
          else
            @middleware.invoke(instance, job, unit.queue) { instance.perform(*job["args"]) }
          end
        rescue Deckhand::Shutdown
          raise
        rescue Exception => e # rubocop:disable Lint/RescueException -- a job's failure is data, whatever its class
          elapsed = ms_since(started)
          @stats.metrics.record(job["wrapped"] || job["class"], elapsed, true)
          @logger.warn("fail #{elapsed.round(1)}ms: #{e.class}: #{e.message}") if @logger.warn?
          @retries.failed(unit, job, klass, e)
          @fetcher.done(unit, ack: false)
          notify_error(e, job)
          return false
        end
        elapsed = ms_since(started)
        @stats.metrics.record(job["wrapped"] || job["class"], elapsed, false)
        @logger.info("done #{elapsed.round(1)}ms") if @logger.info?
        @fetcher.done(unit)
        true
      end

      def decode(unit)
        Payload.decode(unit.payload)
      rescue Payload::Decoder::Invalid => e
        @logger.error("corrupt payload in queue #{unit.queue}: #{e.message}; moved to the dead set with its raw bytes")
        @retries.corrupt(unit, e.message)
        @fetcher.done(unit, ack: false)
        nil
      end

      def constantize(name)
        @classes[name] || @classes_lock.synchronize do
          @classes[name] ||= Object.const_get(name)
        end
      rescue NameError => e
        raise UnknownJobClass, "#{name} is not a class this process knows (#{e.message}); is it loaded " \
          "(deckhand -r)? During a deploy, old processes may see new jobs: it will be retried"
      end

      # Unrounded, so the metrics of sub-millisecond jobs do not all read 0.
      def ms_since(started) = (::Process.clock_gettime(::Process::CLOCK_MONOTONIC) - started) * 1000.0

      def notify_error(error, job)
        @config.error_handlers.each do |handler|
          handler.call(error, {"context" => "job", "job" => job})
        rescue => e
          @logger.error("error handler raised #{e.class}: #{e.message}")
        end
      end
    end
  end
end
