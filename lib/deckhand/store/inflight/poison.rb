# frozen_string_literal: true

module Deckhand
  class Store
    module Inflight
      # Poison pills set aside by a recovery (store/scripts/fetch/recover.lua puts them
      # in their queue's poison hash, atomically with the rest of the recovery),
      # waiting to be written to the dead set.
      #
      #   Poison.pending(store, %w[default mail])   # => {"default" => {"host:1:abc|b4a5..." => payload}}
      #   Poison.bury(store, "default", "host:1:abc|b4a5...", entry, now: Time.now.to_f, timeout: 15_552_000, max_jobs: 10_000)
      module Poison # :nodoc:
        module_function

        def pending(store, queues)
          return {} if queues.empty?
          sizes = store.pipelined { |pipe| queues.each { |q| pipe.call("HLEN", store.layout.poison(q)) } }
          queues.zip(sizes).select { |_, size| size.positive? }.to_h do |queue, _|
            [queue, store.call("HGETALL", store.layout.poison(queue))]
          end
        end

        # Writes the dead entry and forgets the pill in one transaction, so a
        # reaper dying in between loses nothing: the next pass finishes the job.
        def bury(store, queue, key, entry, now:, timeout:, max_jobs:)
          store.multi do |tx|
            Jobs::Morgue.bury(tx, store.layout.dead_set(queue), entry, now: now, max_jobs: max_jobs, timeout: timeout)
            tx.call("HDEL", store.layout.poison(queue), key)
          end
        end
      end
    end
  end
end
