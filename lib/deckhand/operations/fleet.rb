# frozen_string_literal: true

require_relative "../api"
require_relative "memory_families"

module Deckhand
  module Operations
    # The whole fleet's state read from Redis through the data API, as
    # Prometheus gauges: each queue's size, latency and pause, and whether
    # it holds jobs no live process works; the scheduled, retry and dead set
    # sizes, busy threads, live processes; each throttle's slots in use and
    # its concurrency limit; per job class, the executions, failures and
    # seconds of the last hour; the all-time processed and failed
    # counters; workflows pushed and ended and their steps released and
    # cancelled (all time); and each Redis primary's eviction policy, memory share and
    # evicted keys (API::Eviction). Served by `deckhand web` and the
    # mounted Deckhand::Web at /metrics; a few round trips per scrape,
    # whatever the number of jobs.
    # Cardinality is bounded: at most MAX_QUEUES queues (by name) and
    # MAX_CLASSES job classes (those that took the most time).
    #
    #   out = Exposition.new
    #   Fleet.new(Deckhand.config).write(out)
    class Fleet
      MAX_QUEUES = 500
      MAX_CLASSES = 100

      CLASS_FAMILIES = {
        count: ["deckhand_class_executions_last_hour", "Executions of the job class in the last hour"],
        failed: ["deckhand_class_failures_last_hour", "Executions of the job class that raised, in the last hour"],
        seconds: ["deckhand_class_seconds_last_hour", "Seconds the job class ran, in the last hour"],
        failed_seconds: ["deckhand_class_failed_seconds_last_hour", "Seconds the job class ran in executions that raised, in the last hour"]
      }.freeze
      # Quantiles of one execution's time, successes and failures apart.
      QUANTILES = [0.5, 0.95, 0.99].freeze
      DURATION = "deckhand_class_duration_seconds_last_hour"

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

      WORKFLOW_ENDS = %w[succeeded failed cancelled].freeze

      def initialize(config)
        @api = API.new(config)
      end

      def write(out)
        stats = @api.stats
        queues = @api.queues.sort_by(&:name).first(MAX_QUEUES)
        now = @api.now
        queue_family(out, queues, "deckhand_queue_size", "Jobs waiting in the queue", &:size)
        queue_family(out, queues, "deckhand_queue_latency_seconds", "How long the next job to run has waited") { |q| q.latency(now) }
        queue_family(out, queues, "deckhand_queue_paused", "1 when the queue is paused") { |q| q.paused? ? 1 : 0 }
        unworked = @api.unworked_queues.map(&:name)
        queue_family(out, queues, "deckhand_queue_unworked", "1 when the queue holds jobs no live process works") { |q| unworked.include?(q.name) ? 1 : 0 }
        GAUGES.each { |field, (name, help)| one(out, name, :gauge, help, stats.public_send(field)) }
        COUNTERS.each { |field, (name, help)| one(out, name, :counter, help, stats.public_send(field)) }
        throttles(out)
        workflows(out)
        classes(out)
        MemoryFamilies.write(out, @api.eviction.primaries)
        out
      end

      private

      def queue_family(out, queues, name, help)
        out.family(name, :gauge, help)
        queues.each { |queue| out.sample(name, {"queue" => queue.name}, yield(queue)) }
      end

      def throttles(out)
        list = @api.throttles
        out.family("deckhand_throttle_held_slots", :gauge, "Jobs of the throttled queue running across the fleet")
        list.each { |throttle| out.sample("deckhand_throttle_held_slots", {"queue" => throttle.queue}, throttle.held) }
        name = "deckhand_throttle_concurrency_limit"
        out.family(name, :gauge, "Most jobs of the throttled queue that may run at once")
        list.each { |throttle| (limit = throttle.limit["concurrency"]) && out.sample(name, {"queue" => throttle.queue}, limit) }
      end

      # Counted by the workflow scripts as they act, so exact across the fleet.
      def workflows(out)
        counts = @api.workflows.counts
        one(out, "deckhand_workflows_pushed_total", :counter, "Workflows pushed (started), all time", counts.fetch("pushed", 0))
        name = "deckhand_workflows_ended_total"
        out.family(name, :counter, "Workflows that ended, by how, all time")
        WORKFLOW_ENDS.each { |state| out.sample(name, {"state" => state}, counts["ended"].fetch(state, 0)) }
        one(out, "deckhand_workflow_steps_released_total", :counter, "Workflow steps released to their queues, all time", counts.fetch("released", 0))
        one(out, "deckhand_workflow_steps_cancelled_total", :counter, "Workflow steps cancelled, all time", counts.fetch("cancelled", 0))
      end

      def classes(out)
        list = @api.metrics(period: "1h").classes.first(MAX_CLASSES)
        values = {count: :count, failed: :failed, seconds: ->(m) { m.total_ms / 1000.0 }, failed_seconds: ->(m) { m.failed_ms / 1000.0 }}
        CLASS_FAMILIES.each do |field, (name, help)|
          out.family(name, :gauge, help)
          list.each { |m| out.sample(name, {"class" => m.name}, values[field].to_proc.call(m)) }
        end
        durations(out, list)
      end

      # Successes' and failures' quantiles apart: a fast failure does not
      # hide how long the job takes when it works.
      def durations(out, list)
        out.family(DURATION, :gauge, "Quantiles of one execution's seconds in the last hour, successes and failures apart")
        list.each do |m|
          QUANTILES.each do |q|
            [["success", m.percentile_ms(q)], ["failure", m.failed_percentile_ms(q)]].each do |outcome, ms|
              out.sample(DURATION, {"class" => m.name, "outcome" => outcome, "quantile" => q.to_s}, ms / 1000.0) if ms
            end
          end
        end
      end

      def one(out, name, type, help, value)
        out.family(name, type, help)
        out.sample(name, {}, value)
      end
    end
  end
end
