# frozen_string_literal: true

module Deckhand
  class API
    # Queues that hold jobs no live process works: those jobs wait until a
    # process is started with the queue (`deckhand -q NAME`). Paused queues
    # are left out (waiting is what they were told to do). A Sidekiq process
    # on the same Redis counts as working its queues.
    #
    #   api.unworked_queues.map { |queue| [queue.name, queue.size] }   # => [["mailers", 12]]
    #   API::UnworkedQueues.new(config, also_worked: ["default"]).to_a # and this process's queues
    class UnworkedQueues
      include Enumerable

      # processes: an API::ProcessSet already read, to save a round trip.
      def initialize(config, also_worked: [], processes: nil)
        @config = config
        @also_worked = also_worked
        @processes = processes
      end

      # Yields each Queue that holds jobs no live process works.
      def each(&) = list.each(&)

      private

      def list
        @list ||= begin
          worked = (@processes || ProcessSet.new(@config)).worked_queues | @also_worked
          Queue.all(@config).select { |queue| queue.size.positive? && !queue.paused? && !worked.include?(queue.name) }
        end
      end
    end
  end
end
