# frozen_string_literal: true

require_relative "process_record"
require_relative "execution_metrics"
require_relative "../features/throttles"
require_relative "../jobs/cancellations"
require_relative "../jobs/held_classes"
require_relative "../jobs/priority_pushes"

module Deckhand
  class Store
    module Records
      # What a server process's heartbeat writes and reads, in one round trip:
      # the processed/failed counters since the last beat (all time and per UTC
      # day, as Sidekiq keeps them), the per-class metrics, the process record;
      # and back the paused queues, the queues' priority levels, how many processes are registered, the
      # oldest signal sent to this one and which of the jobs it runs someone
      # cancelled (one MGET of their cancel marks, when it runs any).
      #
      #   Heartbeats.beat(store, identity, counts: [12, 1], metrics: tally, record: {info: json, ...})
      #   # => #<struct Beat paused=["mail"], processes=2, signal=nil, cancels={}>
      #   Heartbeats.forget(store, identity)   # a clean shutdown
      module Heartbeats # :nodoc:
        DAILY_TTL = 5 * 365 * 24 * 60 * 60

        # placement: [epoch, queues being moved] in cluster mode (Store::Tags::QueueMove),
        # nil in plain mode; the queues being moved are among the paused.
        # cancels: {jid => grace or nil} of the `running` jids cancelled.
        # priorities: {queue => [level, ...]}, the priority levels pushes
        # used (Store::Jobs::PriorityPushes) for the queues of `queues:`.
        # paused_classes: the job classes paused (Jobs::HeldClasses).
        Beat = Struct.new(:paused, :processes, :signal, :throttles, :placement, :cancels, :priorities, :paused_classes)

        module_function

        # record: the keywords of ProcessRecord.write; sidekiq_metrics: the
        # Sidekiq versions whose metrics layouts are written too. The round
        # trip also reads Redis' clock, which the store's clock (Store::Records::Clock)
        # follows; what it writes is timed by that clock as it stood before.
        # running: the jids of the jobs the process runs; errors: its
        # failures per error class since the last beat (Records::ErrorMetrics).
        def beat(store, identity, counts:, metrics:, record:, sidekiq_metrics: Records::ExecutionMetrics::SIDEKIQ_LAYOUTS.keys,
          now: Time.at(store.clock.now), running: [], queues: [], errors: {})
          store.layout.place(queues)
          sent = Monotonic.now
          replies = store.pipelined do |pipe|
            pipe.call("TIME")
            Jobs::Queues.queue_paused_read(pipe)
            Jobs::HeldClasses.paused_read(pipe)
            pipe.call("HGETALL", Features::Throttles::SETTINGS)
            queues.each { |queue| pipe.call("SMEMBERS", store.layout.priorities(queue)) }
            Records::ExecutionMetrics.flush(pipe, metrics, now: now, prefix: store.layout::METRICS, sidekiq: sidekiq_metrics)
            Records::ErrorMetrics.flush(pipe, errors, now: now, prefix: store.layout::METRICS)
            count(pipe, store.layout, *counts, now.utc.strftime("%Y-%m-%d"))
            Records::ProcessRecord.write(pipe, store.layout, identity, **record, now: now)
            Records::ProcessRecord.count(pipe, store.layout)
            Records::ProcessRecord.take_signal(pipe, store.layout, identity)
            Tags::QueuePlacement::Moves.read(pipe) unless store.layout.plain?
            Jobs::Cancellations.read_marks(pipe, store.layout, running) unless running.empty?
          end
          store.clock.observe(replies.shift, sent, Monotonic.now)
          cancels = running.empty? ? {} : Jobs::Cancellations.marked(running, replies.pop)
          placement = Tags::QueuePlacement::Moves.parse(*replies.pop(2)) unless store.layout.plain?
          paused = Jobs::Queues.merge_paused(replies.first(2)) | (placement&.last || [])
          priorities = queues.zip(replies[4, queues.size]).to_h { |queue, members| [queue, Jobs::PriorityPushes.parse(members)] }
          Beat.new(paused, replies[-2].to_i, replies.last, Features::Throttles.parse(replies[3]), placement, cancels, priorities, replies[2])
        end

        # Removes the process record: out of the set, its hashes gone.
        def forget(store, identity)
          store.pipelined do |pipe|
            pipe.call("SREM", store.layout::PROCESSES, identity)
            pipe.call("UNLINK", store.layout.process(identity), store.layout.work(identity))
            Records::ChunkMembers.forget(pipe, store.layout, identity)
          end
        end

        # counts: processed, failed and (optionally) expired jobs.
        def count(pipe, keys, processed, failed, *expired, date)
          [[keys::PROCESSED, processed], [keys::FAILED, failed], [keys::EXPIRED, expired.first.to_i]].each do |stat, n|
            next if n.zero?
            pipe.call("INCRBY", stat, n)
            pipe.call("INCRBY", keys.daily(stat, date), n)
            pipe.call("EXPIRE", keys.daily(stat, date), DAILY_TTL)
          end
        end
      end
    end
  end
end
