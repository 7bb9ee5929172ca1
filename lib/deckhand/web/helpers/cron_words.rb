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
        # Cron's day numbers (0 and 7 are Sunday), as the texts name them (cron.day_<n>).
        DAYS = %w[0 1 2 3 4 5 6 0].freeze
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
          return locale.t("cron.daily", at: at) if weekday == "*"
          return locale.t("cron.on_day", day: locale.text("cron.day_#{DAYS[weekday.to_i]}"), at: at) if weekday.match?(/\A[0-7]\z/)
          locale.t("cron.weekdays", at: at) if weekday == "1-5"
        end

        private

        def seconds_words(fields)
          return locale.t("cron.every_second") if fields.first == "*"
          step = fields.first[STEP, 1] and return locale.t("cron.seconds", count: step.to_i)
          locale.t("cron.at_second", n: fields.first) if fields.first.match?(NUMBER)
        end

        def minutes_words(minute)
          return locale.t("cron.every_minute") if minute == "*"
          step = minute[STEP, 1] and return locale.t("cron.minutes", count: step.to_i)
          locale.t("cron.at_minute", n: minute) if minute.match?(NUMBER)
        end
      end
    end
  end
end
