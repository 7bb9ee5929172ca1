# frozen_string_literal: true

module Deckhand
  module Locale
    # Numbers, durations and times as a language writes them, from its
    # texts' number.*, duration.* and time.* keys. Digits stay 0-9 in every
    # language, so a number reads the same in a screenshot and in a search.
    #
    #   fr = Deckhand::Locale["fr"]
    #   fr.number(1234567)                 # => "1 234 567"
    #   fr.decimal(2.54)                   # => "2,5"
    #   fr.duration(3725)                  # => "1 h 2 min"
    #   fr.ago(Time.now - 90, Time.now)    # => "il y a 1 min"
    #   fr.time(Time.utc(2030, 1, 2, 3))   # => "02/01/2030 03:00:00 UTC"
    module Formats
      def number(value)
        digits = value.to_i.abs.to_s.gsub(/\B(?=(\d{3})+(?!\d))/, text("number.delimiter"))
        value.to_i.negative? ? "-#{digits}" : digits
      end

      # A Float rounded to `places`, as Ruby writes it but for the
      # language's decimal separator ("2.5" is "2,5" in French).
      def decimal(value, places = 1) = value.to_f.round(places).to_s.sub(".", text("number.separator"))

      # "12.5 s", "5 min", "1 h 2 min", "3 d 4 h".
      def duration(seconds)
        seconds = seconds.to_f
        return unit("s", decimal(seconds)) if seconds < 60
        return unit("min", (seconds / 60).floor) if seconds < 3600
        return pair("h", seconds / 3600, "min", (seconds % 3600) / 60) if seconds < 86_400
        pair("d", seconds / 86_400, "h", (seconds % 86_400) / 3600)
      end

      # "5 min ago", or "in 5 min" for a time to come.
      def ago(time, now)
        seconds = now - time
        (seconds >= 0) ? t("time.ago", time: duration(seconds)) : t("time.from_now", time: duration(-seconds))
      end

      # The exact time in UTC, in the language's order of day, month and year.
      def time(time) = time.utc.strftime(text("time.format"))

      private

      def unit(name, amount) = t("duration.#{name}", n: amount.is_a?(String) ? amount : number(amount))

      def pair(big, big_amount, small, small_amount)
        t("duration.pair", big: unit(big, big_amount.floor), small: unit(small, small_amount.floor))
      end
    end
  end
end
