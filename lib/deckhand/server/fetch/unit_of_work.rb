# frozen_string_literal: true

module Deckhand
  module Server
    module Fetch
      # A fetched job: its lot, its position in the lot (what settles it), its raw
      # bytes, whether the fetcher counts it settled, and what the settle script
      # said of its outcome (:written, :settled or :gone; nil before). A
      # supervisor checks the last two when the thread running it dies.
      UnitOfWork = Struct.new(:lot, :position, :payload, :settled, :recorded) do
        # The list it was fetched from (a partition's own, for a partitioned
        # queue): where it sits in the in-flight record.
        def queue = lot.queue

        # The queue it belongs to, as pushed: what middleware, retries and the
        # dashboard see.
        def queue_name = lot.queue_name

        # Where it sits in the in-flight record: [:lot, id, position] or [:landing, payload].
        def place = lot.place(position, payload)

        def settled? = settled == true
      end
    end
  end
end
