# frozen_string_literal: true

module Deckhand
  module Server
    module Fetch
      # What a capsule's fetch asks for and what its answer becomes: the
      # sources (its unpaused queues in fetch order, each with the id of the
      # lot its jobs would fill, ids from the process's Sequence) and the
      # units of work of the lots the fetch filled.
      #
      #   sources = Sources.new(capsule, sequence: sequence, suspects: suspects)
      #   asked = sources.next(paused: [])            # => [[queue index, lot id], ...]
      #   units = sources.units(takes, asked)         # => [UnitOfWork, ...]
      class Sources
        def initialize(capsule, sequence:, suspects:)
          @capsule = capsule
          @queues = capsule.queues
          @index = @queues.each_with_index.to_h
          @sequence = sequence
          @suspects = suspects
        end

        # paused: indexes of the queues paused from the dashboard or API.
        def next(paused:)
          order = @capsule.fetch_order.map { |queue| @index[queue] } - paused
          base = @sequence.reserve(order.size)
          order.each_with_index.map { |index, j| [index, base + j + 1] }
        end

        # One Lot per take, its jobs in the order taken. Tells Suspects each
        # queue's recovery count version, which may read Redis (and raise
        # Deckhand::RedisError: the lots are then the caller's to hand back).
        def units(takes, asked)
          takes.flat_map do |take|
            index, id = asked[take.source]
            queue = @queues[index]
            @suspects.observe(queue, take.version)
            lot = Lot.new(queue, index, id, take.payloads.size)
            take.payloads.each_with_index.map { |payload, i| UnitOfWork.new(lot, i, payload, false) }
          end
        end
      end
    end
  end
end
