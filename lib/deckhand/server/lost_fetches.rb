# frozen_string_literal: true

module Deckhand
  module Server
    # Reclaims the jobs of fetches whose reply was lost. A fetch that fails
    # after Redis ran it (the connection dropped on the way back) leaves jobs in
    # this live process's in-flight hash that no thread knows about; the reaper
    # never touches a live process, so they would wait for its shutdown. Their
    # fields are predictable, though: the sequence numbers the fetch reserved,
    # each with one of the capsule's queues. Once Redis answers again (and a
    # moment has passed, so the lost call cannot still be on its way), those
    # fields go back to the front of their queues. Fields that were never
    # written are skipped by the requeue script.
    #
    #   lost = LostFetches.new(store: store, inflight: key, queues: %w[default])
    #   lost.add(base, 20)                  # after a failed fetch that reserved base+1..base+20
    #   lost.reclaim if lost.due?           # => number of jobs handed back
    class LostFetches
      SETTLE = 1.0

      def initialize(store:, inflight:, queues:, logger: nil)
        @store = store
        @inflight = inflight
        @queues = queues.uniq
        @logger = logger
        @ranges = []
      end

      def add(base, count)
        @ranges << [base + 1, base + count, now + SETTLE] if count.positive?
      end

      def any? = !@ranges.empty?

      def due? = any? && @ranges.first[2] <= now

      # Seconds until the oldest range may be reclaimed; nil when none waits.
      def wait_time = any? ? [@ranges.first[2] - now, 0].max : nil

      # Raises the Redis error when Redis is still away; the ranges then wait.
      def reclaim
        due, @ranges = @ranges.partition { |range| range[2] <= now }
        fields = due.flat_map { |first, last, _| (first..last).flat_map { |seq| @queues.map { |q| "#{seq}:#{q}" } } }
        count = fields.empty? ? 0 : @store.script(:requeue, [@inflight], ["some", *fields])
        @logger&.warn("handed back #{count} jobs fetched by a round trip whose reply was lost") if count.positive?
        count
      rescue Deckhand::RedisError
        @ranges = due + @ranges
        raise
      end

      private

      def now = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)
    end
  end
end
