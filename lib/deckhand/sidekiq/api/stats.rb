# frozen_string_literal: true

module Sidekiq
  # Sidekiq::Stats in drop-in mode, on Deckhand::API::Stats (one read when
  # built, as Sidekiq's).
  #
  #   stats = Sidekiq::Stats.new
  #   stats.processed; stats.failed; stats.enqueued; stats.retry_size
  #   stats.queues                      # => {"default" => 12, "mailers" => 0}
  #   Sidekiq::Stats::History.new(7).processed   # => {"2026-11-23" => 1200, ...}
  class Stats
    def initialize
      @api = Deckhand::API.new
      @stats = @api.stats
    end

    def processed = @stats.processed

    def failed = @stats.failed

    def enqueued = @stats.enqueued

    def scheduled_size = @stats.scheduled

    def retry_size = @stats.retries

    def dead_size = @stats.dead

    def processes_size = @stats.processes

    def workers_size = @stats.busy

    def queues = @api.queues.to_h { |queue| [queue.name, queue.size] }

    def default_queue_latency = @api.queue("default").latency

    def reset(*)
      raise Deckhand::DropIn::Unsupported.new("Sidekiq::Stats#reset", "Deckhand's counters are not reset from the API")
    end

    # Daily processed and failed counts, newest first, keyed "YYYY-MM-DD".
    class History
      def initialize(days_previous, _start_date = nil)
        @days = Deckhand::API.new.history(days: days_previous).to_a.reverse
      end

      def processed = @days.to_h { |day| [day.date, day.processed] }

      def failed = @days.to_h { |day| [day.date, day.failed] }
    end
  end
end
