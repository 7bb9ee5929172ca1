# frozen_string_literal: true

require "date"

module Deckhand
  class API
    # Jobs processed and failed per day (UTC), from the stat:processed:YYYY-MM-DD
    # and stat:failed:YYYY-MM-DD counters, oldest day first; up to a year.
    #
    #   api.history(days: 30).each { |day| puts "#{day.date} #{day.processed} #{day.failed}" }
    class History
      # One day's counts: its Date, processed and failed jobs.
      Day = Struct.new(:date, :processed, :failed)
      # The most days one history reads.
      MAX_DAYS = 366

      include Enumerable

      def initialize(config, days:, today: Time.now.utc.to_date)
        days = days.to_i.clamp(1, MAX_DAYS)
        dates = (0...days).map { |n| (today - n).strftime("%Y-%m-%d") }.reverse
        counts = Store::Records::StatCounters.daily(config.store, dates)
        @days = dates.zip(counts).map { |date, (processed, failed)| Day.new(date, processed, failed) }
      end

      # Yields each Day, newest first.
      def each(&) = @days.each(&)

      # How many days.
      def size = @days.size
    end
  end
end
