# frozen_string_literal: true

require_relative "../batch_outbox"
require_relative "../queues"

module Deckhand
  class Store
    module Scripts
      # BatchOps in cluster mode (Store::Layout::ClusterBatches), where batch
      # keys share one slot and queues live in others: the batch's jobs are
      # pushed after BatchAdd registered them, and the callbacks a batch
      # script fired come back from its outbox, are pushed to their queues
      # (Store::BatchOutbox, once per jid), then cleared (BatchDelivered).
      #
      #   class BatchOps
      #     include BatchOpsApart   # #push_apart, #invoke_apart (private)
      #   end
      #   BatchOps.new(store, now_ms: now, stamp: stamp).deliver_pending(age_ms: 0)  # => callbacks handed over
      module BatchOpsApart # :nodoc:
        private

        # Cluster mode: the jids first, then the jobs, as the client pushes
        # them (Store::Queues.push: each queue's slot, each scheduled job in
        # its queue's scheduled set, WAIT when push_replicas is set). A batch
        # is held while its jobs are pushed, so none can complete it before
        # the others are in their queues; if the pushes fail the hold stays,
        # as in plain mode. (Batch::Writer registers alone, then pushes the
        # jobs as a marked push, to know what a lost reply left.)
        def push_apart(bid, jids, queued, scheduled, mark)
          reply = along_lineage(BatchAdd, bid, [jids.size, *jids, 0, 0, PushMarks::TTL], mark: mark)
          return reply unless reply == "ok"
          scheduled = {nil => scheduled} unless scheduled.is_a?(Hash)
          flat = scheduled.values.flatten(1)
          return reply if queued.empty? && flat.empty? # a Client.pusher pushes them
          queues = scheduled.flat_map { |queue, entries| [queue] * (entries.size / 2) }
          Queues.push(@store, queued, flat, queues.all? ? queues : nil)
          reply
        end

        # Cluster mode: the script's reply, and how many callbacks it handed
        # over (they are pushed before this returns, with those this process
        # could not push before if the outbox still holds them).
        def invoke_apart(klass, bids, queues, args, age: BatchOps::OUTBOX_AGE, mark: nil)
          # After a failed call (its reply may be lost, with the callbacks it
          # fired) the next one takes every entry, not only old ones. A
          # failed BatchPending fired nothing: it leaves no doubt of its own,
          # so a drain failing through an outage does not take, once Redis
          # is back, the callbacks live callers are still pushing.
          doubted = BatchOutbox.take_doubt(@store)
          age = 0 if doubted
          begin
            reply, others, own = outbox_call(klass, bids, queues, args, age, mark)
          rescue Deckhand::RedisError
            BatchOutbox.doubt(@store) if doubted || klass != BatchPending
            raise
          end
          kept = BatchOutbox.take_unpushed(@store)
          unless kept.empty?
            begin
              _, more_others, more_own = outbox_call(BatchPending, [], [], kept, age)
            rescue Deckhand::RedisError
              BatchOutbox.keep_unpushed(@store, kept)
              raise
            end
            own |= more_own
            others |= more_others
          end
          others -= own # with age 0 the call's own are old enough to be listed twice
          deliver(others, own)
          [reply, others.size + own.size]
        end

        # The script's reply, the entries others left, and this call's own.
        def outbox_call(klass, bids, queues, args, age, mark = nil) = script(klass).call_apart(bids, queues, args, age, mark: mark)

        # Cluster mode: pushes callbacks ([jid, queue, payload] each) others
        # left and this call fired, then clears them from the outbox.
        def deliver(others, own)
          BatchOutbox.new(@store, now_ms: @now_ms) do |jids|
            script(BatchDelivered).call_apart([], [], jids, BatchOps::OUTBOX_AGE)
          end.deliver(others, own)
        end
      end
    end
  end
end
