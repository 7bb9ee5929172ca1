# frozen_string_literal: true

require "json"
require_relative "../failed_payload"

module Deckhand
  module Server
    module Run
      # Decides what happens to a failed job and writes it, with the job's mark
      # in its lot, in one atomic step (store/scripts/fetch/settle.lua):
      #
      # - retry: false        dropped (Sidekiq's rule), the failure logged
      # - retries left        to the retry set, due after deckhand_retry_in or the
      #                       default backoff (count**4 + 15 s, plus jitter)
      # - retries exhausted   deckhand_retries_exhausted (dropped if it returns
      #                       :discard), then the dead set (unless dead: false),
      #                       then the death handlers (for a :discard too, its
      #                       discarded_at set, with death_handlers_on_discard);
      #                       the final-failure handlers before it is written
      #
      # The fields written are Sidekiq's (FailedPayload). A job whose payload
      # cannot be written as JSON is written as it was fetched, and when even
      # that cannot be, it goes to the dead set with its raw bytes: whatever
      # a job leaves in its payload, its outcome is written, once.
      #
      # #failed returns what became of the job: :retry, :dead or :dropped.
      # Each write leaves its result on the unit (UnitOfWork#recorded), so a
      # thread that dies after the outcome was written settles nothing twice;
      # handlers (death handlers, deckhand_retries_exhausted, deckhand_retry_in)
      # may raise any exception but the shutdown: it is logged, and the
      # outcome stands.
      class RetryHandler
        def initialize(config:, store:, identity:)
          @config = config
          @store = store
          @identity = identity
          @logger = config.logger
          @payloads = FailedPayload.new(config)
          @settle = {}
        end

        def failed(unit, job, klass, error)
          retry_option = job["retry"]
          retry_option = (klass.respond_to?(:deckhand_options) ? klass.deckhand_options["retry"] : true) if retry_option.nil?
          return discard(unit, job, "retry is disabled", error) unless retry_option

          now = Payload.now(@config.timestamps, clock: @store.clock)
          queue = Store::Layout::PartitionNames.base(unit.queue)
          @payloads.record(job, queue, error, now)
          again = ->(fetched) { @payloads.record(fetched, queue, error, now) } # the same failure, on the job as fetched
          max = (retry_option == true) ? @config.max_retries : retry_option.to_i
          count = job["retry_count"]
          # retry_for, when set, replaces the count (Sidekiq 8's rule).
          over = job["retry_for"].is_a?(Numeric) ? expired?(job) : count >= max
          return exhausted(unit, job, klass, error, again) if over

          strategy, delay = delay_for(klass, count, error, job)
          case strategy
          when :discard then discarded(unit, job, error, "deckhand_retry_in returned :discard")
          when :kill then exhausted(unit, job, klass, error, again)
          else
            at = @store.clock.now + delay
            payload = encode(unit, job, error, &again) or return :dead
            write(unit) { |settle| settle.retry(unit.place, at: at, payload: payload) }
            :retry
          end
        end

        # To the schedule set, due `delay` seconds from now by the fleet's
        # clock (a job over a limiter's limit, see Server::Run::OverLimitHandler),
        # written with its mark like any outcome.
        def reschedule(unit, job, delay:)
          at = @store.clock.now + delay
          payload = encode(unit, job, nil) { |fetched| fetched["overrated"] = job["overrated"] } or return :dead
          write(unit) { |settle| settle.reschedule(unit.place, at: at, payload: payload) }
        end

        # An entry that is not a job: kept, raw bytes and all, in the dead set.
        def corrupt(unit, reason, error_class: "Deckhand::CorruptPayload")
          now = Payload.now(@config.timestamps, clock: @store.clock)
          entry = {
            "class" => "Deckhand::CorruptPayload", "args" => [], "queue" => Store::Layout::PartitionNames.base(unit.queue),
            "jid" => Payload.jid, "retry" => false, "created_at" => now, "failed_at" => now,
            "error_class" => error_class, "error_message" => @payloads.utf8(reason)[0, FailedPayload::MAX_MESSAGE],
            "raw" => [unit.payload].pack("m0"), "raw_encoding" => "base64"
          }
          bury(unit, JSON.generate(entry))
          :dead
        end

        # A job that stopped early to resume later (Deckhand::Interrupted): its
        # payload unchanged, due now in the schedule, written with its mark.
        def resume(unit)
          now = @store.clock.now
          write(unit) { |settle| settle.reschedule(unit.place, at: now, payload: unit.payload) }
        end

        def default_delay(count) = (count**4) + 15 + (rand(10) * (count + 1))

        # What the class's deckhand_retry_in makes of the `count`th retry:
        # [:discard, nil], [:kill, nil] or [:default, seconds] (its number, a
        # Duration as seconds, or the default backoff when it gives none).
        def delay_for(klass, count, error, job)
          delay = custom_delay(klass, count, error, job)
          return [delay, nil] if delay == :discard || delay == :kill
          # No number, or one no retry can be due at (NaN, Infinity): the default.
          return [:default, default_delay(count)] unless delay.is_a?(Numeric) && delay.finite?
          [:default, (delay.is_a?(Integer) || delay.is_a?(Float)) ? delay : delay.to_f]
        end

        # The outcome and the job's mark, atomically; the result (Settle's
        # :written, :settled or :gone) is left on the unit. While Redis fails
        # the thread waits and tries again (logging as Outage says): settle.lua
        # writes nothing when it is refused, so the job stays in flight, never
        # lost. Only the wait may be cut short by the shutdown interrupt, never
        # a write under way. A job found settled on a try after a failed one
        # was settled by that try (its reply was lost on the way back): the
        # outcome is this call's, and its handlers run once.
        def write(unit)
          settle = (@settle[unit.queue] ||= Store::Scripts::Settle.new(@store, identity: @identity, queue: unit.queue))
          Outage.wait_out(@logger, "recording the outcome of a job from queue #{unit.queue}") do |again|
            result = yield(settle)
            unit.recorded = (again && result == :settled) ? :written : result
          end
          gone(unit) if unit.recorded == :gone
        end

        private

        # The outcome's payload (FailedPayload#encode). When the job cannot be
        # written at all, it goes to the dead set as it was fetched, and nil
        # says the outcome is written; a job failed outside a server (no raw
        # bytes, drop-in's Sidekiq::JobRetry) raises as Sidekiq's would.
        def encode(unit, job, error, &again)
          payload = @payloads.encode(job, unit.payload, &again) and return payload
          JSON.generate(job) unless unit.payload # raises what writing it raises
          why = "its outcome could not be written as JSON, neither as it stood nor as it was fetched"
          @logger.error("a job from queue #{unit.queue} failed, but #{why}; moved to the dead set with its raw bytes")
          failure = error ? "#{error.class}: #{@payloads.message_of(error)}; " : ""
          corrupt(unit, "#{failure}#{why}", error_class: error ? error.class.name : "Deckhand::CorruptPayload")
          nil
        end

        def expired?(job)
          limit = job["retry_for"]
          return false unless limit.is_a?(Numeric)
          failed_at = Payload.to_epoch(job["failed_at"]) or return false
          failed_at + limit < @store.clock.now
        end

        def custom_delay(klass, count, error, job)
          block = klass.respond_to?(:deckhand_retry_in) && klass.deckhand_retry_in
          return nil unless block
          # Named as the application wrote it (drop-in mode's classes answer sidekiq_retry_in).
          rule = klass.respond_to?(:sidekiq_retry_in) ? "sidekiq_retry_in" : "deckhand_retry_in"
          call_safely("Failure scheduling retry using the defined `#{rule}` in #{klass}, falling back to the default backoff: the block") do
            block.call(count, error, job)
          end
        end

        def exhausted(unit, job, klass, error, again)
          hook = klass.respond_to?(:deckhand_retries_exhausted) && klass.deckhand_retries_exhausted
          verdict = call_safely("deckhand_retries_exhausted") { hook.call(job, error) } if hook
          # :discard drops the job: no dead set entry (Sidekiq's rule).
          return discarded(unit, job, error, "deckhand_retries_exhausted returned :discard") if verdict == :discard
          outcome = if job["dead"] == false
            # Sidekiq 8's mark (Integer ms): death handlers tell it from a dead job.
            job["discarded_at"] = @store.clock.now_ms
            discard(unit, job, "retries exhausted and dead: false", error)
          else
            final(job, error, :dead) # before either write: as it stands, or as fetched (encode)
            if (payload = encode(unit, job, error, &again))
              bury(unit, payload, job)
              @logger.warn("dead: retries exhausted, moved to the dead set") if unit.recorded == :written
            end
            :dead
          end
          outcome.tap { notify_death(unit, job, error) }
        end

        # Dropped as its class asked; the death handlers hear of it, marked
        # discarded, where the configuration says so (Sidekiq 8's rule), else
        # nothing does (Sidekiq 7's).
        def discarded(unit, job, error, why)
          return discard(unit, job, why, error) unless @config.death_handlers_on_discard
          job["discarded_at"] = @store.clock.now_ms
          discard(unit, job, why, error).tap { notify_death(unit, job, error) }
        end

        # Once per death: not again for a write repeated after a lost reply.
        def notify_death(unit, job, error)
          return unless unit.recorded == :written
          @config.death_handlers.each { |handler| call_safely("death handler") { handler.call(job, error) } }
        end

        def discard(unit, job, why, error)
          @logger.info("discarded (#{why})")
          final(job, error, :dropped)
          write(unit) { |settle| settle.drop(unit.place, unlock: lock(unit, job)) }
          :dropped
        end

        def final(job, error, outcome) = @config.final_handlers.each { |h| call_safely("final failure handler") { h.call(job, error, outcome) } }

        # The unique lock that goes with the job's outcome (Store::Features::UniqueLocks.within).
        def lock(unit, job) = Store::Features::UniqueLocks.within(@store, Unique.held_by(job, @store.layout), unit.queue)

        # A death releases the job's unique lock (`job`: nil for a corrupt entry).
        def bury(unit, payload, job = nil)
          now = @store.clock.now
          write(unit) do |settle|
            settle.bury(unit.place, payload: payload, now: now,
              timeout: @config.dead_timeout, max_jobs: @config.dead_max_jobs, unlock: job && lock(unit, job))
          end
        end

        # The job left this process's in-flight record before its outcome was
        # written. Only the owners registry can say why: a process that is no
        # longer registered was taken for dead and its jobs recovered by another.
        def gone(unit)
          owner = Store::Inflight::Owners.registered?(@store, @identity)
          why = if owner
            "it is no longer in this process's in-flight record (handed back to its queue)"
          else
            "this process was taken for dead and another recovered its jobs"
          end
          @logger.warn("a job from queue #{unit.queue} failed, but #{why}: it runs again, this outcome is not written")
        rescue Deckhand::RedisError => e
          @logger.warn("a job from queue #{unit.queue} failed, but it is no longer in this process's in-flight record " \
            "(handed back, or recovered by another process; Redis could not say which: #{e.message}): " \
            "it runs again, this outcome is not written")
        end

        # A handler's error, whatever its class (a NotImplementedError is no
        # StandardError), is logged; the shutdown interrupt alone goes through.
        def call_safely(what)
          yield
        rescue Deckhand::AppError => e # a handler's bug must not unsettle a job
          @logger.error("#{what} raised #{e.class}: #{e.message}")
          nil
        end
      end
    end
  end
end
