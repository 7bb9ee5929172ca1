# frozen_string_literal: true

module DeckhandBench
  # One row of the results table: what is measured, in which unit, how to
  # print it, and the target it has to meet (a check over all results,
  # returning true, false, or nil when a figure it needs is missing).
  #
  #   Figure.new(key: :noop_10, label: "No-op throughput, 10 threads", unit: "jobs/s", digits: 0,
  #     target: ">= 2x Sidekiq", check: ->(r) { r.ratio(:noop_10)&.>=(2) })
  Figure = Struct.new(:key, :label, :unit, :digits, :target, :check, keyword_init: true) do
    def format(value)
      return "—" if value.nil?
      return "∞" if value.is_a?(Float) && value.infinite?
      text = digits.zero? ? value.round.to_s : Kernel.format("%.#{digits}f", value)
      whole, fraction = text.split(".")
      whole = whole.gsub(/(\d)(?=(\d{3})+\z)/, '\1,')
      fraction ? "#{whole}.#{fraction}" : whole
    end

    def title = unit ? "#{label} (#{unit})" : label

    def met(results) = check&.call(results)
  end
end
