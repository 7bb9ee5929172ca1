# frozen_string_literal: true

module Deckhand
  class Web
    # Where a retry would send jobs, read before the user confirms it: how
    # many would wait in a paused queue, and how many in a queue no live
    # process works, so the confirmation (one job's page, or a filter's
    # "retry all") says so before the click, not only in the notice after.
    #
    #   dest = RetryDestinations.matching(api, api.retries, ["Net::ReadTimeout"])
    #   dest.paused      # => {"mail" => 12}
    #   dest.unworked    # => {"exports" => 3}
    #   dest.complete?   # => false when only the first GROUP_BUDGET matches were read
    class RetryDestinations
      # The matches of a filter, read in bounded steps, as the grouped view counts.
      def self.matching(api, set, texts, limit: API::JobSet::GROUP_BUDGET)
        counts = Hash.new(0)
        read = 0
        from = 0
        while from && read < limit
          found, from = set.filter(texts, from: from, limit: API::JobSet::BATCH, budget: API::JobSet::COUNT_STEP)
          read += found.size
          found.each { |entry| counts[entry.queue] += 1 if queued?(entry) }
        end
        new(api, counts, complete: from.nil?)
      end

      # One job's page.
      def self.entry(api, entry) = new(api, queued?(entry) ? {entry.queue => 1} : {}, complete: true)

      # What a retry would send somewhere: a job naming its queue.
      def self.queued?(entry) = !entry.corrupt? && entry.queue.is_a?(String) && !entry.queue.empty?

      attr_reader :paused, :unworked

      def initialize(api, counts, complete:)
        worked = counts.empty? ? [] : api.processes.worked_queues
        @paused = counts.select { |queue, _| api.queue(queue).paused? }
        @unworked = counts.except(*worked)
        @complete = complete
      end

      def complete? = @complete

      def any? = !(paused.empty? && unworked.empty?)
    end
  end
end
