# frozen_string_literal: true

require "securerandom"
require_relative "../../features/batch_lineages"
require_relative "../../features/batch_outbox"
require_relative "../../push_marks"
require_relative "../../jobs/queues"
require_relative "batch_create"
require_relative "batch_reopen"
require_relative "batch_add"
require_relative "batch_release"
require_relative "batch_job_done"
require_relative "batch_job_failed"
require_relative "batch_job_dead"
require_relative "batch_delivered"
require_relative "batch_pending"

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
      # (Server::Chores::BatchOutboxDrain calls #deliver_pending every 30 s),
      # whichever comes first.
      class BatchOps # :nodoc:
        # One per process: lineages are the same whichever store reads them.
        LINEAGES = Features::BatchLineages.new

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
          return push_separately(bid, jids, queued, scheduled, mark) if @batch_keys.outbox?
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
          invoke_with_outbox(BatchPending, [], [], [], age: age_ms).last
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
          return invoke_with_outbox(klass, bids, queues, args, mark: mark).first if @batch_keys.outbox?
          script(klass).call(bids, queues, args, pushed: pushed, mark: mark)
        end

        # Cluster mode: the jids first, then the jobs, as the client pushes
        # them (Store::Jobs::Queues.push: each queue's slot, each scheduled job in
        # its queue's scheduled set, WAIT when push_replicas is set). A batch
        # is held while its jobs are pushed, so none can complete it before
        # the others are in their queues; if the pushes fail the hold stays,
        # as in plain mode. (Batch::Writer registers alone, then pushes the
        # jobs as a marked push, to know what a lost reply left.)
        def push_separately(bid, jids, queued, scheduled, mark)
          reply = along_lineage(BatchAdd, bid, [jids.size, *jids, 0, 0, PushMarks::TTL], mark: mark)
          return reply unless reply == "ok"
          scheduled = {nil => scheduled} unless scheduled.is_a?(Hash)
          flat = scheduled.values.flatten(1)
          return reply if queued.empty? && flat.empty? # a Client.pusher pushes them
          queues = scheduled.flat_map { |queue, entries| [queue] * (entries.size / 2) }
          Jobs::Queues.push(@store, queued, flat, queues.all? ? queues : nil)
          reply
        end

        # Cluster mode: the script's reply, and how many callbacks it handed
        # over (they are pushed before this returns, with those this process
        # could not push before if the outbox still holds them).
        def invoke_with_outbox(klass, bids, queues, args, age: OUTBOX_AGE, mark: nil)
          # After a failed call (its reply may be lost, with the callbacks it
          # fired) the next one takes every entry, not only old ones. A
          # failed BatchPending fired nothing: it leaves no doubt of its own,
          # so a drain failing through an outage does not take, once Redis
          # is back, the callbacks live callers are still pushing.
          doubted = Features::BatchOutbox.take_doubt(@store)
          age = 0 if doubted
          begin
            reply, others, own = outbox_call(klass, bids, queues, args, age, mark)
          rescue Deckhand::RedisError
            Features::BatchOutbox.doubt(@store) if doubted || klass != BatchPending
            raise
          end
          kept = Features::BatchOutbox.take_unpushed(@store)
          unless kept.empty?
            begin
              _, more_others, more_own = outbox_call(BatchPending, [], [], kept, age)
            rescue Deckhand::RedisError
              Features::BatchOutbox.keep_unpushed(@store, kept)
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
        def outbox_call(klass, bids, queues, args, age, mark = nil) = script(klass).call_with_outbox(bids, queues, args, age, mark: mark)

        # Cluster mode: pushes callbacks ([jid, queue, payload] each) others
        # left and this call fired, then clears them from the outbox.
        def deliver(others, own)
          Features::BatchOutbox.new(@store, now_ms: @now_ms) do |jids|
            script(BatchDelivered).call_with_outbox([], [], jids, OUTBOX_AGE)
          end.deliver(others, own)
        end
      end
    end
  end
end
