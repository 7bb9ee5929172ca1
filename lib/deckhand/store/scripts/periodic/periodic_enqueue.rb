# frozen_string_literal: true

require_relative "../../features/periodic_ticks"

module Deckhand
  class Store
    module Scripts
      # Runs periodic_enqueue.lua: one tick of a periodic entry to its queue,
      # at most once across every process (see the script). In cluster mode
      # the script records the tick and Store::Features::PeriodicTicks pushes it, in
      # the same call: a pending push left by a crash is completed first.
      #
      #   PeriodicEnqueue.new(store).call(token: token, name: "nightly", tick: 1_764_000_000,
      #     next_tick: 1_764_086_400, queue: "reports", jid: jid, payload: json)
      #   # => :enqueued, :done, :not_leader or :paused
      #
      # With push_replicas set, the push of the job is waited for (plain
      # mode: behind this script; cluster mode: behind PeriodicPush), and
      # raises NotReplicated when its replicas came short: the tick is
      # enqueued all the same, and asking again answers :done.
      class PeriodicEnqueue < Script # :nodoc:
        lua "periodic/periodic_enqueue", uses: ["guard"]

        OUTCOMES = {1 => :enqueued, 0 => :done, -1 => :not_leader, -2 => :paused, -3 => :pending}.freeze

        # tick: 0 records next_tick only. now: epoch seconds (realtime).
        def call(token:, name:, tick:, next_tick:, queue:, jid: "", payload: "", now: Time.now.to_f)
          argv = [token, tick.to_i, next_tick.to_i, now.to_f, queue, jid, payload]
          return OUTCOMES.fetch(record(name, argv << name)) unless keys.plain?
          list = [keys::PERIODIC_LEADER, keys.periodic(name), keys::QUEUES, keys.queue(queue)]
          return OUTCOMES.fetch(run(list, argv)) if payload.empty? # a tick recorded only: no job to wait for
          OUTCOMES.fetch(run_durably(list, argv) { |outcome| (outcome == 1) ? [jid] : [] })
        end

        private

        # Cluster mode: records the tick, pushes it; a push still pending
        # from before is completed first (then the tick is asked for again).
        def record(name, argv)
          list = [keys::PERIODIC_LEADER, keys.periodic(name), keys::PERIODIC_PENDING]
          outcome = run(list, argv)
          if outcome == -3
            Features::PeriodicTicks.complete(@store, [name])
            outcome = run(list, argv)
          end
          Features::PeriodicTicks.complete(@store, [name]) if outcome == 1
          outcome
        end
      end
    end
  end
end
