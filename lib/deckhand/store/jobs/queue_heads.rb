# frozen_string_literal: true

module Deckhand
  class Store
    module Jobs
      # The next jobs to run of many queues, in one round trip: each list's
      # last `count` entries (jobs are pushed on the left and taken from the
      # right), in the order they will run. A bounded sample, whatever the
      # length of the queue: one LRANGE of `count` entries per list.
      #
      #   QueueHeads.read(store, ["reports", "default"], 1_000)   # => [[raw, ...], [raw, ...]]
      module QueueHeads # :nodoc:
        module_function

        def read(store, names, count)
          return [] if names.empty?
          return names.map { [] } if count <= 0
          store.layout.place(names)
          lists = store.pipelined { |pipe| names.each { |name| pipe.call("LRANGE", store.layout.queue(name), -count, -1) } }
          lists.map(&:reverse)
        end
      end
    end
  end
end
