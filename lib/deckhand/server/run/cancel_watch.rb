# frozen_string_literal: true

require_relative "../../store/jobs/cancellations"

module Deckhand
  module Server
    module Run
      # A job runner's side of cancelling a running job (docs/cancelling.md):
      # it enters each job in the process's Run::Cancels before it starts,
      # hands it the job's instance, and once perform returned asks whether
      # the cancel came first. A cancelled job's outcome is recorded once, as
      # cancelled: acknowledged like a success (never retried, never handed
      # back), its unique lock released, and the record of the cancellation
      # written for the API. Its mark stays until it expires, so should the
      # process die before the acknowledgement reaches Redis, the job the
      # reaper hands back is cancelled again at its next start. The
      # configuration's cancel handlers (Config#on_cancelled) are told
      # before the acknowledgement.
      #
      #   watch = CancelWatch.new(cancels: stats.cancels, store: store, fetcher: fetcher, gate: gate, logger: logger,
      #     interruptible: true, handlers: config.cancel_handlers)
      #   entry = watch.enter(jid)
      #   watch.attach(entry, instance)
      #   watch.settle(unit, job) if watch.cancelled?(entry)
      class CancelWatch
        # interruptible: false in a fiber capsule, whose jobs share a thread.
        def initialize(cancels:, store:, fetcher:, gate:, logger:, interruptible:, handlers: [])
          @handlers = handlers
          @cancels = cancels
          @store = store
          @fetcher = fetcher
          @gate = gate
          @logger = logger
          @interruptible = interruptible
        end

        def enter(jid) = @cancels.enter(jid, Thread.current, interruptible: @interruptible)

        # A chunk's members (Run::ChunkRunner), by their jids: told of their
        # cancels, never interrupted (the chunk's thread runs the others too).
        # Returns their entries, in order.
        def enter_members(jids) = @cancels.enter_all(jids, Thread.current)

        # The members' entries by jid, for Chunk#cancelled?.
        def by_jid(entries) = @cancels.by_jid(entries)

        # Whether the member's cancel has been seen while its chunk runs.
        def told?(entry) = @cancels.told?(entry)

        # #cancelled? for each of a chunk's members at once: nil when none
        # was cancelled (most chunks), else whether each was, in order.
        def members_cancelled(entries)
          states = @cancels.leave_all(entries)
          return nil unless states.any?
          drain if states.include?(:raised)
          states.map { |state| !state.nil? }
        end

        def attach(entry, instance) = @cancels.attach(entry, instance)

        # Runs the job's block where the shutdown and cancel interrupts may
        # land (in a fiber capsule, where its shield says): a cancel interrupt
        # that lands as the block ends is the job's error all the same.
        def interruptible(shield, &)
          shield ? shield.interruptible(&) : Thread.handle_interrupt(JobRunner::UNMASKED, &)
        rescue Deckhand::Cancelled => e
          e
        end

        # Whether the job was cancelled before its perform returned. After
        # this no interrupt is sent; one sent before and not delivered yet
        # (it waits behind the thread's mask) is taken here, so it never
        # lands in the thread's next job.
        def cancelled?(entry)
          state = @cancels.leave(entry)
          drain if state == :raised
          !state.nil?
        end

        # Whether the job's cancel mark is set: asked of a job recovered from a
        # process that died while it may have been running it (rare), so a job
        # cancelled then never starts again. Unknown (Redis failed) counts as
        # no: the job starts, and the heartbeat reads its mark.
        def marked?(jid)
          !Store::Jobs::Cancellations.marked_among(@store, [jid]).empty?
        rescue Deckhand::RedisError
          false
        end

        # Records the cancelled job's one outcome.
        def settle(unit, job)
          record = {"jid" => job["jid"], "class" => job["wrapped"] || job["class"], "queue" => unit.queue_name,
                    "where" => "running", "at" => @store.clock.now.round(3)}
          begin
            Store::Jobs::Cancellations.write(@store, record, unmark: false)
          rescue Deckhand::RedisError => e # the record is for people; the acknowledgement is the outcome
            @logger.warn("could not record the cancellation of #{job["jid"]} (#{e.message})")
          end
          tell(job)
          @fetcher.done(unit, unlock: @gate.unlock(job, unit.queue))
          @logger.info("#{record["class"]} jid=#{job["jid"]} cancelled") if @logger.info?
          :cancelled
        end

        private

        def tell(job)
          @handlers.each do |handler|
            handler.call(job, "running")
          rescue Deckhand::AppError => e # a handler's bug must not unsettle a job
            @logger.error("cancel handler raised #{e.class}: #{e.message}")
          end
        end

        def drain
          Thread.handle_interrupt(Deckhand::Cancelled => :immediate) { nil }
        rescue Deckhand::Cancelled
          nil
        end
      end
    end
  end
end
