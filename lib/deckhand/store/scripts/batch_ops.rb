# frozen_string_literal: true

require "securerandom"
require_relative "../batch_lineages"
require_relative "../push_marks"
require_relative "batch_create"
require_relative "batch_reopen"
require_relative "batch_add"
require_relative "batch_release"
require_relative "batch_job_done"
require_relative "batch_job_failed"
require_relative "batch_job_dead"
require_relative "batch_delivered"
require_relative "batch_pending"
require_relative "batch_ops_apart"

module Deckhand
  class Store
    module Scripts
      # The batch scripts (batch_*.lua, one per operation), the one place
      # batch state changes: each method is one atomic call. Each call
      # declares every key its script may touch: the keys of the batch and
      # of its ancestors (an outcome can complete a parent), their callback
      # queues (completing pushes callback jobs), the queues jobs are pushed
      # to, and the batch indexes (BatchScript).
      #
      #   ops = BatchOps.new(store, now_ms: 1_764_000_000_000, stamp: 1_764_000_000_000)
      #   ops.create(bid, parent: nil, idle_ttl_ms: 2_592_000_000, success_ttl_ms: 86_400_000,
      #     callback_queue: "default", description: "Import", callbacks: ["", on_success, ""])  # => "ok"
      #   ops.push(bid, jids, {"default" => payloads}, mark: keys.batches.push_mark(id))   # => "ok"
      #   ops.release(bid)                               # => "ok"
      #   ops.success(bid, jid)                          # => 1 (counted now), 0 (counted before)
      #
      # In cluster mode (Store::Layout::ClusterBatches) every batch key is in one
      # slot and queues are in others, so pushes are separate steps: #push
      # registers the jids, then pushes the jobs (the batch is held meanwhile);
      # a call that fires callbacks gets them back from the script's outbox
      # and pushes them (BatchCallbacks, once per jid), then clears them from
      # the outbox (BatchDelivered). Callbacks a crashed caller left in the
      # outbox for OUTBOX_AGE are pushed by the next call, whatever batch it
      # is for, or by a running server's outbox drain
      # (Server::BatchOutboxDrain calls #deliver_pending every 30 s),
      # whichever comes first.
      class BatchOps # :nodoc:
        include BatchOpsApart

        # One per process: lineages are the same whichever store reads them.
        LINEAGES = BatchLineages.new

        # Reads of the lineage before giving up: more than one only when a
        # batch was created between the read and the call.
        ATTEMPTS = 3

        # Cluster mode: ms after which a callback still in the outbox is
        # pushed by whoever calls next or a server's outbox drain (its own
        # caller pushes it at once; younger, it is left to that caller).
        OUTBOX_AGE = 30_000

        # Cluster mode: the most old entries one call lists (the LIMIT of
        # lib/batch_outbox.lua), the oldest first.
        OUTBOX_TAKE = 100

        def initialize(store, now_ms:, stamp:)
          @store = store
          @now_ms = now_ms
          @stamp = stamp
          @batch_keys = store.layout.batches
        end

        # callbacks: the encoded complete, success and death callbacks ("" for
        # none). Returns "ok", or "exists", "parent_gone", "parent_done".
        def create(bid, parent:, idle_ttl_ms:, success_ttl_ms:, callback_queue:, description:, callbacks:)
          @store.layout.queue(callback_queue) # refuses, in cluster mode, a name that cannot be a hash tag
          bids = parent ? [bid, parent] : [bid]
          args = [parent.to_s, idle_ttl_ms, success_ttl_ms, callback_queue, description.to_s, *callbacks]
          reply = invoke(BatchCreate, bids, [], args)
          if reply == "ok"
            above = parent ? LINEAGES.known(parent) : []
            LINEAGES.remember(bid, [[bid, callback_queue], *above]) if above
          end
          reply
        end

        # Holds an existing batch open to add jobs: "ok", or "gone", "done".
        def reopen(bid) = along_lineage(BatchReopen, bid, [])

        # Registers jids with the batch and pushes their jobs: queued is queue
        # name => [payload, ...], scheduled [score, payload, ...] or, for
        # cluster mode, queue name => [score, payload, ...]. "ok" or "gone";
        # "seen" when `mark` (Layout::PlainBatches.push_mark, one of its own
        # when none is given) was written already: the call ran before, or
        # was asked about (PushMarks.ask), and changed nothing now.
        def push(bid, jids, queued = {}, scheduled = [], mark: @batch_keys.push_mark(SecureRandom.urlsafe_base64(12)))
          return push_apart(bid, jids, queued, scheduled, mark) if @batch_keys.outbox?
          scheduled = scheduled.values.flatten(1) if scheduled.is_a?(Hash)
          jobs = queued.flat_map { |queue, payloads| [queue, payloads.size, *payloads] }
          args = [jids.size, *jids, queued.size, *jobs, scheduled.size / 2, *scheduled, PushMarks::TTL]
          # The jobs are written by the script: with push_replicas, it WAITs.
          pushed = (queued.empty? && scheduled.empty?) ? nil : jids
          along_lineage(BatchAdd, bid, args, queues: queued.keys, pushed: pushed, mark: mark)
        end

        # Lets go of the hold taken by create or reopen: "ok" or "gone".
        def release(bid) = along_lineage(BatchRelease, bid, [])

        # The outcomes return 1 when this call counted the job, 0 when it had
        # been counted (or is not the batch's).
        def success(bid, jid) = along_lineage(BatchJobDone, bid, [jid])

        def failure(bid, jid, error_json) = along_lineage(BatchJobFailed, bid, [jid, error_json])

        def death(bid, jid, error_json) = along_lineage(BatchJobDead, bid, [jid, error_json])

        # Cluster mode: pushes the callbacks left in the outbox for longer
        # than age_ms (by a process that died between firing and pushing
        # them); returns how many it handed to their queues.
        def deliver_pending(age_ms: OUTBOX_AGE)
          return 0 unless @batch_keys.outbox?
          invoke_apart(BatchPending, [], [], [], age: age_ms).last
        end

        private

        # The script of class `klass` (a BatchScript), with this call's clock.
        def script(klass) = klass.new(@store, now_ms: @now_ms, stamp: @stamp)

        # pushed: the jids of the jobs the call pushes (plain mode's push),
        # waited for when push_replicas is set.
        def along_lineage(klass, bid, args, queues: [], pushed: nil, mark: nil)
          lineage = LINEAGES.fetch(@store, bid)
          ATTEMPTS.times do
            reply = invoke(klass, lineage.map(&:first), lineage.filter_map(&:last) | queues, args, pushed, mark)
            return reply unless reply == "stale"
            lineage = LINEAGES.read(@store, bid)
          end
          raise Deckhand::Error, "batch #{bid}: its parent or callback queue in Redis changed under #{ATTEMPTS} " \
            "calls in a row; something other than Deckhand writes to #{@batch_keys.batch(bid)}"
        end

        def invoke(klass, bids, queues, args, pushed = nil, mark = nil)
          return invoke_apart(klass, bids, queues, args, mark: mark).first if @batch_keys.outbox?
          script(klass).call(bids, queues, args, pushed: pushed, mark: mark)
        end
      end
    end
  end
end
