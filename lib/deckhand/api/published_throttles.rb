# frozen_string_literal: true

module Deckhand
  class API
    # The queue throttles the live server processes say they enforce: each
    # Deckhand process publishes its configuration's throttles with its
    # heartbeat (the "throttles" field of its record, Store::Records::ProcessRecord),
    # so a dashboard started without the application's configuration still
    # knows them, and how many partitions each queue spreads over (its slots
    # are added up over them). Processes that disagree are kept apart.
    #
    #   published = PublishedThrottles.new(api.processes)
    #   published["exports"]          # => {"concurrency" => 2} (the limit most processes publish)
    #   published.publishers("exports") # => ["host:123:9f3a", ...]
    #   published.disagree?("exports")   # => false
    #   published.partitions("exports")  # => 1, or the number of lists most processes publish
    class PublishedThrottles
      # processes: ProcessInfo objects (an API::ProcessSet); stale ones are left out.
      def initialize(processes)
        @by_queue = Hash.new { |hash, queue| hash[queue] = Hash.new { |limits, limit| limits[limit] = [] } }
        @counts = Hash.new { |hash, queue| hash[queue] = Hash.new(0) }
        processes.each do |process|
          next if process.stale?
          process.throttles.each { |queue, limit| @by_queue[queue][limit] << process.identity }
          process.partitions.each { |queue, count| @counts[queue][count] += 1 }
        end
      end

      # How many lists the queue spreads over, as most publishing processes
      # say (1: not partitioned, or no process says).
      def partitions(queue) = @counts.key?(queue) ? @counts[queue].max_by { |count, processes| [processes, count] }.first : 1

      # The queues some live process publishes a throttle for.
      def queues = @by_queue.keys

      # The limit most publishing processes enforce, or nil.
      def [](queue) = winner(queue)&.first

      # The identities of the processes publishing the limit #[] answers.
      def publishers(queue) = winner(queue)&.last || []

      # True when processes publish different limits for the queue (a deploy
      # half done, or capsules configured apart).
      def disagree?(queue) = @by_queue.key?(queue) && @by_queue[queue].size > 1

      private

      def winner(queue) = @by_queue.key?(queue) ? @by_queue[queue].max_by { |_, ids| ids.size } : nil
    end
  end
end
