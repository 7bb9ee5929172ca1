# frozen_string_literal: true

require "date"

module Deckhand
  class API
    # Jobs processed and failed per day (UTC), from the stat:processed:YYYY-MM-DD
    # and stat:failed:YYYY-MM-DD counters, oldest day first; up to a year.
    #
    #   api.history(days: 30).each { |day| puts "#{day.date} #{day.processed} #{day.failed}" }
    class History
      Day = Struct.new(:date, :processed, :failed)
      MAX_DAYS = 366

      include Enumerable

      def initialize(config, days:, today: Time.now.utc.to_date)
        days = days.to_i.clamp(1, MAX_DAYS)
        dates = (0...days).map { |n| (today - n).strftime("%Y-%m-%d") }.reverse
        processed, failed = config.store.pipelined do |pipe|
          pipe.call("MGET", *dates.map { |date| Store::Keys.daily(Store::Keys::PROCESSED, date) })
          pipe.call("MGET", *dates.map { |date| Store::Keys.daily(Store::Keys::FAILED, date) })
        end
        @days = dates.each_with_index.map { |date, i| Day.new(date, processed[i].to_i, failed[i].to_i) }
      end

      def each(&) = @days.each(&)

      def size = @days.size
    end
  end
end
