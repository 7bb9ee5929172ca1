# frozen_string_literal: true

require_relative "../store/records/queue_samples"

module Deckhand
  class API
    # A queue's depth and latency over a period, from the samples a server
    # process takes once a minute (Store::Records::QueueSamples, 72 hours).
    # A point per minute over "1h" and "4h"; over "24h" and "72h" a point
    # per 5 or 15 minutes holding the deepest and slowest sample among them,
    # so a spike is not averaged away. A minute nobody sampled (no server
    # ran) is nil, a gap in the chart; a queue never sampled has no points.
    #
    #   history = api.queue_history("mailers", period: "24h")
    #   history.points    # => [[Time, 120, 4.5], [Time, nil, nil], ...] oldest first (jobs, seconds)
    #   history.empty?    # => true until a server has sampled the queue
    class QueueHistory
      # period => [minutes covered, minutes per point]
      PERIODS = {"1h" => [60, 1], "4h" => [240, 1], "24h" => [1440, 5], "72h" => [4320, 15]}.freeze

      attr_reader :name, :period, :step, :points

      def initialize(config, name, period: "1h", now: config.store.clock.now)
        @name = name.to_s
        @period = PERIODS.key?(period) ? period : "1h"
        minutes, per_point = PERIODS.fetch(@period)
        @step = per_point * 60
        last = (now / @step).floor * per_point # the current point's first minute
        first = last - minutes + per_point
        samples = Store::Records::QueueSamples.read(config.store, @name, from: first, to: last + per_point - 1)
        @sampled = !samples.empty?
        buckets = samples.group_by { |minute, _, _| (minute - first) / per_point }
        @points = Array.new(minutes / per_point) do |i|
          found = buckets[i]
          [Time.at((first + (i * per_point)) * 60).utc, found&.map { |_, size, _| size }&.max, found&.map { |_, _, latency| latency }&.max]
        end.freeze
      end

      # True until a server has sampled the queue in the period.
      def empty? = !@sampled
    end
  end
end
