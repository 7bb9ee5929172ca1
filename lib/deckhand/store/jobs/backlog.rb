# frozen_string_literal: true

module Deckhand
  class Store
    module Jobs
      # How many jobs wait in each queue, in one round trip: what auto-balance
      # splits a capsule's fetches by (Server::Balance::Balancer). A fair queue's
      # tenants' jobs count as waiting.
      #
      #   Deckhand::Store::Jobs::Backlog.sizes(store, %w[cpu io])  # => {"cpu" => 900, "io" => 310}
      module Backlog # :nodoc:
        module_function

        def sizes(store, queues)
          return {} if queues.empty?
          store.layout.place(queues)
          replies = store.pipelined do |pipe|
            queues.each do |queue|
              pipe.call("LLEN", store.layout.queue(queue))
              pipe.call("ZCARD", store.layout.fair_jobs(queue))
            end
          end
          queues.each_with_index.to_h { |queue, i| [queue, replies[2 * i] + replies[2 * i + 1]] }
        end
      end
    end
  end
end
