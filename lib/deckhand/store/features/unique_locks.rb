# frozen_string_literal: true

require_relative "../scripts/push/unique_push"
require_relative "../scripts/push/unlock"

module Deckhand
  class Store
    module Features
      # Unique locks (Deckhand::Unique): taken with the push, read and released
      # by hand from the data API and the dashboard. The server releases them
      # inside its acknowledgement and outcome scripts.
      #
      #   Deckhand::Store::Features::UniqueLocks.holder(store, "unique:ab12...")   # => ["b4a5...", 599_000] (jid, ms left)
      #   Deckhand::Store::Features::UniqueLocks.release(store, "unique:ab12...")  # => true
      module UniqueLocks # :nodoc:
        module_function

        # jobs: [Unique::Lock, at or nil, payload], all for `queue`. Returns, per
        # job, nil when pushed or the jid holding its lock.
        # fair: a Config::FairQueues, for the jobs of tenants (Scripts::UniquePush).
        def push(store, queue, jobs, fair: nil) = Scripts::UniquePush.new(store).call(queue, jobs, fair: fair)

        # Takes a lock on its own (perform_inline): nil when taken, else the holder's jid.
        def take(store, lock)
          return nil if store.call("SET", lock.key, lock.jid, "NX", "PX", lock.ttl_ms)
          store.call("GET", lock.key) || take(store, lock)
        end

        # [holder jid, milliseconds left] or nil when the lock is free.
        def holder(store, key)
          jid, ttl = store.pipelined do |pipe|
            pipe.call("GET", key)
            pipe.call("PTTL", key)
          end
          jid && [jid, ttl]
        end

        # Releases the lock if `jid` holds it (whoever holds it when jid is nil).
        def release(store, key, jid = nil) = Scripts::Unlock.new(store).call([[key, jid]]) == 1

        # The lock (as Unique.held_by gives it: [key, jid, TTL ms], or nil) to
        # release inside a script of `queue`'s slot: the acknowledgement of a
        # success, an outcome. In cluster mode a lock in another slot cannot go
        # in that script (a job that moved to its retry_queue after its push
        # holds the lock of its first queue): it is released here, on its own,
        # and nil returned.
        def within(store, lock, queue)
          layout = store.layout
          return lock if lock.nil? || layout.plain? || lock.first.start_with?("#{layout.tag(queue)}:")
          release(store, lock[0], lock[1])
          nil
        end
      end
    end
  end
end
