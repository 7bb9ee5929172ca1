# frozen_string_literal: true

module Deckhand
  class Web
    module Helpers
      # The common shapes of a cron, in words, for the Periodic page; nil for
      # the rest (the page shows the cron itself). No cron parser needed:
      # the dashboard's process may not have fugit.
      #
      #   cron_words("*/15 * * * * *")   # => "every 15 seconds"
      #   cron_words("0 2 * * *")        # => "every day at 02:00"
      #   cron_words("30 9 * * 1")       # => "every Monday at 09:30"
      #   cron_words("0 2 1 * *")        # => nil
      module CronWords
        DAYS = %w[Sunday Monday Tuesday Wednesday Thursday Friday Saturday Sunday].freeze
        STEP = %r{\A\*/(\d+)\z}
        NUMBER = /\A\d+\z/

        def cron_words(cron)
          fields = cron.to_s.split
          return nil unless [5, 6].include?(fields.size)
          return seconds_words(fields) if fields.size == 6 && fields[1..] == %w[* * * * *]
          fields = fields.drop(1) if fields.size == 6 && fields.first == "0"
          return nil unless fields.size == 5 && fields[2..3] == %w[* *]
          minute, hour, _, _, weekday = fields
          return minutes_words(minute) if hour == "*" && weekday == "*"
          return nil unless minute.match?(NUMBER) && hour.match?(NUMBER)
          at = format("%02d:%02d", hour.to_i, minute.to_i)
          return "every day at #{at}" if weekday == "*"
          return "every #{DAYS[weekday.to_i]} at #{at}" if weekday.match?(/\A[0-7]\z/)
          "every weekday at #{at}" if weekday == "1-5"
        end

        private

        def seconds_words(fields)
          return "every second" if fields.first == "*"
          step = fields.first[STEP, 1] and return "every #{step} seconds"
          "every minute at second #{fields.first}" if fields.first.match?(NUMBER)
        end

        def minutes_words(minute)
          return "every minute" if minute == "*"
          step = minute[STEP, 1] and return "every #{step} minutes"
          "every hour at minute #{minute}" if minute.match?(NUMBER)
        end
      end
    end
  end
end
