# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs periodic_enqueue.lua: one tick of a periodic entry to its queue,
      # at most once across every process (see the script).
      #
      #   PeriodicEnqueue.new(store).call(token: token, name: "nightly", tick: 1_764_000_000,
      #     next_tick: 1_764_086_400, queue: "reports", jid: jid, payload: json)
      #   # => :enqueued, :done, :not_leader or :paused
      class PeriodicEnqueue < Script
        lua "periodic_enqueue"

        OUTCOMES = {1 => :enqueued, 0 => :done, -1 => :not_leader, -2 => :paused}.freeze

        # tick: 0 records next_tick only. now: epoch seconds (realtime).
        def call(token:, name:, tick:, next_tick:, queue:, jid: "", payload: "", now: Time.now.to_f)
          outcome = run([keys::PERIODIC_LEADER, keys.periodic(name), keys::QUEUES, keys.queue(queue)],
            [token, tick.to_i, next_tick.to_i, now.to_f, queue, jid, payload])
          OUTCOMES.fetch(outcome)
        end
      end
    end
  end
end
