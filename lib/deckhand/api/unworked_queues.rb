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

      def initialize(config, also_worked: [])
        @config = config
        @also_worked = also_worked
      end

      def each(&) = list.each(&)

      private

      def list
        @list ||= begin
          worked = ProcessSet.new(@config).reject(&:stale?).flat_map(&:queues) | @also_worked
          Queue.all(@config).select { |queue| queue.size.positive? && !queue.paused? && !worked.include?(queue.name) }
        end
      end
    end
  end
end
