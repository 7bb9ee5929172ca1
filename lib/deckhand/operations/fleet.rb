# frozen_string_literal: true

require_relative "../api"

module Deckhand
  module Operations
    # The whole fleet's state read from Redis through the data API, as
    # Prometheus gauges: each queue's size, latency and pause, the scheduled,
    # retry and dead set sizes, busy threads, live processes, and the all-time
    # processed and failed counters. Served by `deckhand web` and the mounted
    # Deckhand::Web at /metrics; a few round trips per scrape, whatever the
    # number of jobs. At most MAX_QUEUES queues (by name) are listed.
    #
    #   out = Exposition.new
    #   Fleet.new(Deckhand.config).write(out)
    class Fleet
      MAX_QUEUES = 500

      GAUGES = {
        enqueued: ["deckhand_enqueued_jobs", "Jobs waiting in all queues"],
        scheduled: ["deckhand_scheduled_jobs", "Jobs in the scheduled set"],
        retries: ["deckhand_retry_jobs", "Jobs in the retry set"],
        dead: ["deckhand_dead_jobs", "Jobs in the dead set"],
        busy: ["deckhand_busy_threads", "Threads running a job, in all processes"],
        processes: ["deckhand_processes", "Live server processes"]
      }.freeze

      COUNTERS = {
        processed: ["deckhand_stat_processed_total", "Jobs run by every process, all time (Sidekiq's stat:processed)"],
        failed: ["deckhand_stat_failed_total", "Jobs that raised, all time (Sidekiq's stat:failed)"]
      }.freeze

      def initialize(config)
        @api = API.new(config)
      end

      def write(out)
        stats = @api.stats
        queues = @api.queues.sort_by(&:name).first(MAX_QUEUES)
        now = Time.now
        queue_family(out, queues, "deckhand_queue_size", "Jobs waiting in the queue", &:size)
        queue_family(out, queues, "deckhand_queue_latency_seconds", "How long the next job to run has waited") { |q| q.latency(now) }
        queue_family(out, queues, "deckhand_queue_paused", "1 when the queue is paused") { |q| q.paused? ? 1 : 0 }
        GAUGES.each { |field, (name, help)| one(out, name, :gauge, help, stats.public_send(field)) }
        COUNTERS.each { |field, (name, help)| one(out, name, :counter, help, stats.public_send(field)) }
        out
      end

      private

      def queue_family(out, queues, name, help)
        out.family(name, :gauge, help)
        queues.each { |queue| out.sample(name, {"queue" => queue.name}, yield(queue)) }
      end

      def one(out, name, type, help, value)
        out.family(name, type, help)
        out.sample(name, {}, value)
      end
    end
  end
end
