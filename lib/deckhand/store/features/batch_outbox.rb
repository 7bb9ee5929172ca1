# frozen_string_literal: true

require_relative "../layout/cluster_batches"
require_relative "../scripts/batch/batch_callbacks"

module Deckhand
  class Store
    module Features
      # Cluster mode: pushes the callback jobs the batch scripts fired (and left in
      # its outbox, in the {batches} slot) to their queues, each queue in its
      # own slot, then has them cleared from the outbox. Pushing is once per jid
      # (Scripts::BatchCallbacks), so a callback handed over twice, after a
      # crash or to two callers at once, reaches its queue once.
      #
      # The jids of the callbacks a call fired itself and could not push (a
      # queue's node failing over) are kept in this process: its next batch
      # call to the same Redis pushes them if the outbox still holds them (no
      # one else pushed and cleared them meanwhile). The error is raised, so the
      # caller retries as it does when Redis fails (the server's batch
      # middleware waits it out). Those a crashed caller left are pushed once
      # they are BatchOps::OUTBOX_AGE old, by whichever comes first: any
      # process's next batch call, or a running server's outbox drain
      # (Server::Chores::BatchOutboxDrain, every 30 s), so they never wait for new
      # batch activity or a boot; a failure there leaves them for the next.
      # After a batch call whose reply was lost (it may have fired callbacks)
      # the process's next call takes every entry at once.
      #
      #   outbox = BatchOutbox.new(store, now_ms: now) { |jids| clear_from_the_outbox(jids) }
      #   outbox.deliver(others, own)   # each [[jid, queue, payload], ...]
      class BatchOutbox # :nodoc:
        UNPUSHED = Hash.new { |hash, location| hash[location] = [] }
        LOCK = Mutex.new

        DOUBTS = {}

        # A batch call to `store` failed: its reply, and the callbacks it may
        # have fired, may be lost. The next call takes it back (true once).
        def self.doubt(store) = LOCK.synchronize { DOUBTS[store.location] = true }

        def self.take_doubt(store) = LOCK.synchronize { DOUBTS.delete(store.location) || false }

        # The jids this process could not push to `store`, taken (emptied).
        def self.take_unpushed(store) = LOCK.synchronize { UNPUSHED.delete(store.location) || [] }

        def self.keep_unpushed(store, jids) = LOCK.synchronize { UNPUSHED[store.location] |= jids }

        def initialize(store, now_ms:, &clear)
          @store = store
          @now_ms = now_ms
          @clear = clear
        end

        def deliver(others, own)
          return if others.empty? && own.empty?
          failed = []
          pushed = []
          pushes = Scripts::BatchCallbacks.new(@store, now_ms: @now_ms)
          (others + own).group_by { |_jid, queue, _payload| queue }.each do |queue, list|
            @store.call("SADD", @store.layout::QUEUES, queue)
            pushes.push(queue, list.map { |jid, _, payload| [jid, payload] })
            pushed.concat(list)
          rescue Deckhand::RedisError => e
            failed << [e, list & own]
          end
          unless pushed.empty?
            @clear.call(pushed.map(&:first))
            pushed.group_by { |_, queue, _| queue }.each { |queue, list| pushes.delivered(queue, list.map(&:first)) }
          end
          mine = failed.reject { |_, entries| entries.empty? }
          return if mine.empty?
          self.class.keep_unpushed(@store, mine.flat_map { |_, entries| entries.map(&:first) })
          raise mine.first.first
        end
      end
    end
  end
end
