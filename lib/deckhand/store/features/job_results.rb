# frozen_string_literal: true

module Deckhand
  class Store
    module Features
      # A job's kept return value (Deckhand::JobResult): a list holding one
      # entry, the JSON envelope, written with its TTL in one transaction,
      # and read by a blocking move of the list onto itself (BLMOVE key key
      # RIGHT RIGHT): the entry stays, so every waiter gets it, and a waiter
      # that came before it was written wakes as it is written.
      #
      #   JobResults.put(store, jid, '{"value":42}', 60_000)
      #   JobResults.wait(store, jid, 5)   # => '{"value":42}', or nil after 5 s
      module JobResults # :nodoc:
        module_function

        # A job run again after a crash writes its entry again, in place of the first.
        def put(store, jid, envelope, ttl_ms)
          key = store.layout.workflows.result(jid)
          store.multi do |tx|
            tx.call("DEL", key)
            tx.call("RPUSH", key, envelope)
            tx.call("PEXPIRE", key, ttl_ms)
          end
        end

        # Waits up to `timeout` seconds; nil when nothing came. Holds a pooled
        # connection meanwhile.
        def wait(store, jid, timeout) = wait_on(store, store.layout.workflows.result(jid), timeout)

        def read(store, jid) = store.call("LINDEX", store.layout.workflows.result(jid), -1)

        # A blocking move of a one-entry list onto itself: the entry, or nil.
        def wait_on(store, key, timeout)
          store.with { |conn| conn.blocking_call(timeout + 1, "BLMOVE", key, key, "RIGHT", "RIGHT", timeout) }
        end
      end
    end
  end
end
