# frozen_string_literal: true

module DeckhandBench
  # Order statistics over a list of numbers.
  #
  #   DeckhandBench::Stats.median([3, 1, 2])          # => 2
  #   DeckhandBench::Stats.percentile([*1..100], 99)  # => 99
  module Stats
    module_function

    # The middle value; the mean of the two middle ones for an even count.
    def median(values)
      return nil if values.empty?
      sorted = values.sort
      mid = sorted.size / 2
      sorted.size.odd? ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0
    end

    # Nearest-rank percentile: the smallest value with at least p % of the
    # values at or below it.
    def percentile(values, p)
      return nil if values.empty?
      sorted = values.sort
      rank = (p / 100.0 * sorted.size).ceil
      sorted[rank.clamp(1, sorted.size) - 1]
    end
  end
end
