# frozen_string_literal: true

require "forwardable"

module Sidekiq
  # Sidekiq::Stats in drop-in mode, on Deckhand::API::Stats (one read when
  # built, as Sidekiq's).
  #
  #   stats = Sidekiq::Stats.new
  #   stats.processed; stats.failed; stats.enqueued; stats.retry_size
  #   stats.queues                      # => {"default" => 12, "mailers" => 0}
  #   Sidekiq::Stats::History.new(7).processed   # => {"2026-11-23" => 1200, ...}
  class Stats
    extend Forwardable

    def_delegators :@stats, :processed, :failed, :enqueued
    def_delegator :@stats, :scheduled, :scheduled_size
    def_delegator :@stats, :retries, :retry_size
    def_delegator :@stats, :dead, :dead_size
    def_delegator :@stats, :processes, :processes_size
    def_delegator :@stats, :busy, :workers_size

    def initialize
      @api = Deckhand::API.new
      @stats = @api.stats
    end

    def queues = @api.queues.to_h { |queue| [queue.name, queue.size] }

    def default_queue_latency = @api.queue("default").latency

    # One queue at a glance (Sidekiq 8's Stats::QueueSummary).
    QueueSummary = Struct.new(:name, :size, :latency, :paused, keyword_init: true) do
      def paused? = paused
    end

    # Every queue's name, size, latency (seconds) and whether it is paused,
    # by name.
    def queue_summaries
      @api.queues.sort_by(&:name).map do |queue|
        QueueSummary.new(name: queue.name, size: queue.size, latency: queue.latency, paused: queue.paused?)
      end
    end

    # Sets the all-time processed and failed counters (or those named:
    # "processed", :failed) back to zero; the daily ones stay.
    def reset(*stats)
      all = %w[processed failed]
      names = stats.empty? ? all : all & stats.flatten.compact.map(&:to_s)
      Deckhand::Store::Records::StatCounters.reset(Deckhand.config.store, names.map(&:to_sym))
    end

    # Daily processed and failed counts, newest first, keyed "YYYY-MM-DD",
    # for up to five years back from today (or start_date).
    class History
      def initialize(days_previous, start_date = nil)
        unless days_previous.is_a?(Integer) && days_previous.between?(1, 5 * 365)
          raise ArgumentError, "Sidekiq::Stats::History takes 1 to #{5 * 365} days, got #{days_previous.inspect}"
        end
        today = start_date || Time.now.utc.to_date
        @days = Deckhand::API.new.history(days: days_previous, today: today).to_a.reverse
      end

      def processed = @days.to_h { |day| [day.date, day.processed] }

      def failed = @days.to_h { |day| [day.date, day.failed] }
    end
  end
end
