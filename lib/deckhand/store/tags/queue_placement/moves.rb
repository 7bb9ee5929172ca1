# frozen_string_literal: true

require "json"
require "securerandom"
require_relative "../../jobs/priority_pushes"

module Deckhand
  class Store
    module Tags
      class QueuePlacement
        # The records of queue moves (Store::Tags::QueueMove, docs/cluster.md "Moving
        # a queue"), all in the fleet's slot: the placement epoch, raised at
        # every step of a move so processes read the placements again; the
        # moves under way (queue => its state, JSON); the retired tags (tag =>
        # queue) a move left, which the mover sweeps; and the lock that lets
        # one move run at a time.
        #
        #   Moves.epoch(store)                  # => 4
        #   Moves.under_way(store)              # => {"mail" => {"from" => "{queue:mail}", "to" => "{queue~2:mail}", "step" => "pause"}}
        #   Moves.retired(store)                # => {"{queue:mail}" => "mail"}
        module Moves # :nodoc:
          EPOCH = Layout::Cluster::PLACEMENT_EPOCH
          UNDER_WAY = Layout::Cluster::PLACEMENT_MOVES
          RETIRED = Layout::Cluster::PLACEMENT_RETIRED
          LOCK = Layout::Cluster::PLACEMENT_LOCK

          module_function

          def epoch(store) = store.call("GET", EPOCH).to_i

          def under_way(store) = store.call("HGETALL", UNDER_WAY).transform_values { |raw| JSON.parse(raw) }

          def retired(store) = store.call("HGETALL", RETIRED)

          # Retired tags whose list, tenants' jobs (a fair queue's) or
          # priority levels' lists hold jobs again (pushed by a process that
          # had not followed the move): tag => [queue, jobs].
          def stranded(store)
            retired(store).filter_map do |tag, queue|
              levels = Jobs::PriorityPushes.parse(store.call("SMEMBERS", Layout::TagNames.priorities(tag)))
              size = store.call("LLEN", tag) + store.call("ZCARD", Layout::TagNames.fair_jobs(tag)) +
                levels.sum { |level| store.call("LLEN", Layout::TagNames.priority(tag, level)) }
              [tag, [queue, size]] if size.positive?
            end.to_h
          end

          # Queues a heartbeat's read of the epoch and the moves under way
          # (their replies go to `parse`).
          def read(pipe)
            pipe.call("GET", EPOCH)
            pipe.call("HGETALL", UNDER_WAY)
          end

          # [epoch, the queues not to fetch: those in a move's first step].
          def parse(epoch, moves)
            [epoch.to_i, moves.filter_map { |queue, raw| queue if JSON.parse(raw)["step"] == "pause" }]
          end

          # Records a move's state and raises the epoch, in one transaction
          # (MULTI, one slot); returns the new epoch.
          def record(store, queue, state)
            store.multi do |pipe|
              pipe.call("HSET", UNDER_WAY, queue, JSON.generate(state))
              pipe.call("INCR", EPOCH)
            end.last
          end

          # Points `queue` at `tag` for every process: the placement and the
          # retired tag in one step with the new epoch.
          def switch(store, queue, state)
            store.multi do |pipe|
              pipe.call("HSET", KEY, queue, state.fetch("to"))
              pipe.call("HSET", RETIRED, state.fetch("from"), queue)
              pipe.call("HDEL", RETIRED, state.fetch("to"))
              pipe.call("HSET", UNDER_WAY, queue, JSON.generate(state))
              pipe.call("INCR", EPOCH)
            end.last
          end

          # The move is over (or abandoned before the switch): processes work
          # the queue again.
          def finish(store, queue)
            store.multi do |pipe|
              pipe.call("HDEL", UNDER_WAY, queue)
              pipe.call("INCR", EPOCH)
            end.last
          end

          # Runs the block holding the lock that lets one move (or sweep of
          # retired tags) run at a time in the fleet, under a token of its
          # own (given to the block, to #prolong the lock), and frees it
          # after; the block's value, or false when another holds the lock
          # for `wait` seconds (tried again every `interval`).
          def holding(store, ttl, wait: 0, interval: 0.05)
            token = SecureRandom.hex(8)
            deadline = Monotonic.now + wait
            until lock(store, token, ttl)
              return false if Monotonic.now >= deadline
              sleep(interval)
            end
            begin
              yield token
            ensure
              unlock(store, token)
            end
          end

          # The token frees only its own lock.
          def lock(store, token, ttl) = store.call("SET", LOCK, token, "NX", "PX", (ttl * 1000).to_i) == "OK"

          # Keeps the lock of a move that is still going (its token).
          def prolong(store, token, ttl)
            store.call("SET", LOCK, token, "XX", "PX", (ttl * 1000).to_i) if store.call("GET", LOCK) == token
          end

          def unlock(store, token)
            store.call("DEL", LOCK) if store.call("GET", LOCK) == token
          end
        end
      end
    end
  end
end
