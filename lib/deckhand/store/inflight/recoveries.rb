# frozen_string_literal: true

module Deckhand
  class Store
    module Inflight
      # The recovery counts of a queue's jobs (jid => times recovered from a
      # process that died while it may have been running them) and the suspects
      # a process is running: the bookkeeping that finds poison pills, kept
      # beside the jobs, never inside their payloads.
      #
      #   counts, version = Recoveries.counts(store, "default")   # => [{"b4a5..." => 1}, "3"]
      #   Recoveries.running(store, identity, "default", "b4a5...")
      #   Recoveries.finished(store, identity, "default", "b4a5...", forget: true)
      module Recoveries # :nodoc:
        VERSION = "~v"
        RUNNING_TTL = 24 * 60 * 60 # the record only matters until a reaper reads it

        module_function

        # The counts and their version (nil when the queue has none).
        def counts(store, queue)
          all = store.call("HGETALL", store.layout.recoveries(queue))
          version = all.delete(VERSION)
          [all.transform_values(&:to_i), version]
        end

        # Records a suspect as running in this process, before it starts.
        def running(store, identity, queue, jid)
          key = store.layout.suspects(identity, queue)
          store.pipelined do |pipe|
            pipe.call("SADD", key, jid)
            pipe.call("EXPIRE", key, RUNNING_TTL)
          end
        end

        # A suspect's outcome is settled. With forget: its count goes too (it
        # succeeded or died: it can no longer crash a process).
        def finished(store, identity, queue, jid, forget:)
          store.pipelined do |pipe|
            pipe.call("SREM", store.layout.suspects(identity, queue), jid)
            pipe.call("HDEL", store.layout.recoveries(queue), jid) if forget
          end
        end
      end
    end
  end
end
