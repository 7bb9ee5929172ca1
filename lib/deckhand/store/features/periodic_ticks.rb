# frozen_string_literal: true

require_relative "../scripts/periodic/periodic_push"
require_relative "../scripts/periodic/periodic_pushed"

module Deckhand
  class Store
    module Features
      # Cluster mode's second half of a periodic tick: periodic_enqueue.lua
      # records the tick and its job in the entry's state ({deckhand} slot);
      # this pushes the job to its queue (its own slot, once whoever retries)
      # and clears the record. The leader completes its own pushes at once,
      # and at every round those left by a process that crashed in between.
      #
      #   Store::Features::PeriodicTicks.complete(store)              # => 1 (pushes completed, of every pending record)
      #   Store::Features::PeriodicTicks.complete(store, ["nightly"]) # only that entry's
      module PeriodicTicks # :nodoc:
        FIELDS = %w[pending_queue pending_tick pending_jid pending_payload].freeze

        module_function

        # Returns how many jobs it pushed (a record whose job was pushed
        # before is only cleared). With push_replicas set, a push its replicas
        # did not acknowledge in time raises NotReplicated (see #complete_one)
        # and leaves the other records to the next call.
        def complete(store, names = store.call("SMEMBERS", store.layout::PERIODIC_PENDING))
          names.count { |name| complete_one(store, name) }
        end

        # A push that raised NotReplicated is in its queue: its record is
        # cleared before the error goes on, so nobody pushes it again.
        def complete_one(store, name)
          queue, tick, jid, payload = store.call("HMGET", store.layout.periodic(name), *FIELDS)
          begin
            pushed = jid ? push(store, name, queue, tick, jid, payload) : false
          rescue NotReplicated
            cleared(store, name, jid)
            raise
          end
          cleared(store, name, jid)
          pushed
        end

        def cleared(store, name, jid) = Scripts::PeriodicPushed.new(store).call(name: name, jid: jid)

        # The queue is registered first: no job waits in a queue nobody knows.
        def push(store, name, queue, tick, jid, payload)
          store.call("SADD", store.layout::QUEUES, queue)
          Scripts::PeriodicPush.new(store).call(queue: queue, name: name, tick: tick, jid: jid, payload: payload)
        end
      end
    end
  end
end
