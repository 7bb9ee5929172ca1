# frozen_string_literal: true

require_relative "../batch_keys"
require_relative "../batch_lineages"

module Deckhand
  class Store
    module Scripts
      # Runs batch_ops.lua, the one place batch state changes: each method is
      # one atomic call. It declares every key the script may touch: the keys
      # of the batch and of its ancestors (an outcome can complete a parent),
      # their callback queues (completing pushes callback jobs), the queues
      # jobs are pushed to, and the batch indexes.
      #
      #   ops = BatchOps.new(store, now_ms: 1_764_000_000_000, stamp: 1_764_000_000_000)
      #   ops.create(bid, parent: nil, idle_ttl_ms: 2_592_000_000, success_ttl_ms: 86_400_000,
      #     callback_queue: "default", description: "Import", callbacks: ["", on_success, ""])  # => "ok"
      #   ops.push(bid, jids, {"default" => payloads})   # => "ok"
      #   ops.release(bid)                               # => "ok"
      #   ops.success(bid, jid)                          # => 1 (counted now), 0 (counted before)
      class BatchOps < Script
        lua "batch_ops"

        # One per process: lineages are the same whichever store reads them.
        LINEAGES = BatchLineages.new

        # Reads of the lineage before giving up: more than one only when a
        # batch was created between the read and the call.
        ATTEMPTS = 3

        # now_ms: the time, epoch milliseconds; stamp: the time as job payloads
        # write it (Payload.now), for the callback jobs pushed.
        def initialize(store, now_ms:, stamp:)
          super(store)
          @now_ms = now_ms
          @stamp = stamp
        end

        # callbacks: the encoded complete, success and death callbacks ("" for
        # none). Returns "ok", or "exists", "parent_gone", "parent_done".
        def create(bid, parent:, idle_ttl_ms:, success_ttl_ms:, callback_queue:, description:, callbacks:)
          bids = parent ? [bid, parent] : [bid]
          reply = invoke("create", bids, [], [parent.to_s, idle_ttl_ms, success_ttl_ms, callback_queue, description.to_s, *callbacks])
          if reply == "ok"
            above = parent ? LINEAGES.known(parent) : []
            LINEAGES.remember(bid, [[bid, callback_queue], *above]) if above
          end
          reply
        end

        # Holds an existing batch open to add jobs: "ok", or "gone", "done".
        def reopen(bid) = along_lineage("reopen", bid, [])

        # Registers jids with the batch and pushes their jobs: queued is queue
        # name => [payload, ...], scheduled [score, payload, ...]. "ok" or "gone".
        def push(bid, jids, queued = {}, scheduled = [])
          jobs = queued.flat_map { |queue, payloads| [queue, payloads.size, *payloads] }
          args = [jids.size, *jids, queued.size, *jobs, scheduled.size / 2, *scheduled]
          along_lineage("push", bid, args, queues: queued.keys)
        end

        # Lets go of the hold taken by create or reopen: "ok" or "gone".
        def release(bid) = along_lineage("release", bid, [])

        # The outcomes return 1 when this call counted the job, 0 when it had
        # been counted (or is not the batch's).
        def success(bid, jid) = along_lineage("success", bid, [jid])

        def failure(bid, jid, error_json) = along_lineage("failure", bid, [jid, error_json])

        def death(bid, jid, error_json) = along_lineage("death", bid, [jid, error_json])

        private

        def along_lineage(op, bid, args, queues: [])
          lineage = LINEAGES.fetch(@store, bid)
          ATTEMPTS.times do
            reply = invoke(op, lineage.map(&:first), lineage.filter_map(&:last) | queues, args)
            return reply unless reply == "stale"
            lineage = LINEAGES.read(@store, bid)
          end
          raise Deckhand::Error, "batch #{bid}: its parent or callback queue in Redis changed under #{ATTEMPTS} " \
            "calls in a row; something other than Deckhand writes to #{BatchKeys.batch(bid)}"
        end

        def invoke(op, bids, queues, args)
          layout = keys
          declared = [BatchKeys::INDEX, BatchKeys::EXPIRIES, layout::QUEUES, layout::SCHEDULE,
            *bids.flat_map { |bid| BatchKeys.all(bid) }, *queues.map { |queue| layout.queue(queue) }]
          run(declared, [@now_ms, @stamp, op, bids.size, *bids, queues.size, *queues, *args])
        end
      end
    end
  end
end
