# frozen_string_literal: true

require "json"
require "securerandom"
require_relative "chunk_capture"
require_relative "active_job_rejoin"

module Deckhand
  class Workflow
    # Server middleware (installed first, so outermost) for jobs that are
    # workflow steps ("wf") or keep their value ("result"): a step's start
    # is told first (a step that succeeded already, or was cancelled, does
    # not run), then its success with its return value, before the job is
    # acknowledged; a crash in between runs the job again, and the second
    # telling changes nothing. A failure is told as failing; what ends the
    # step (its death, its drop) is told by the final-failure handler
    # before the failure is written (Workflow.install). The steps a step
    # added (Workflow.current) and did not push are pushed before its
    # success is told. A chunk's member gives its value with Chunk#result;
    # an Active Job step enqueued again by Active Job (retry_on) stays the
    # step (ActiveJobRejoin); a step over a limiter's limit is released
    # again as it goes back to the schedule, and one a shutdown interrupts
    # as its job is handed back. Each run of a step has a token of its own,
    # told with its start and with its retry's or put-back's news, so that
    # news told late changes nothing once another server started the step
    # again (workflow_attempt.lua). Other jobs pay two Hash lookups.
    class StepMiddleware
      CURRENT = :deckhand_workflow_step

      # What a step's start may answer for it to run: "gone" when its
      # workflow expired, "unknown" for a job the workflow does not hold.
      RUN = %w[run gone unknown].freeze

      # Whether the job is no step and keeps no value: this middleware only
      # yields (Middleware::Chain#passes?).
      def self.deckhand_passes?(payload) = !(payload["wf"] || payload["result"])

      def initialize(config)
        @config = config
        @outcomes = StepOutcomes.new(config)
      end

      def call(instance, payload, _queue)
        wid = payload["wf"]
        keep = payload["result"]
        return yield unless wid || keep
        jid = payload["jid"]
        token = wid && SecureRandom.hex(6)
        if wid && !RUN.include?(started = @outcomes.starting(wid, jid, token))
          forget_iteration(instance, jid) if started == "cancelled"
          return nil
        end
        return member(instance, payload, wid, keep, token) { yield } if chunked?(instance, payload)
        extension = wid && Extension.new(wid, jid, payload["wrapped"] || payload["class"], @config)
        step = wid && [wid, jid, @config, extension]
        value, again = performed(instance, payload, step, token) { yield }
        # Active Job enqueued it again (retry_on): it runs again as the same step.
        return value.tap { @outcomes.failing(wid, jid, token) } if again
        # Cancelled as perform returned: the cancel is its end (Outcomes#cancelled).
        return value if wid && instance.respond_to?(:cancelled?) && instance.cancelled?
        ended(payload, wid, keep, value)
      end

      # A job that keeps its value failed for good: its waiters learn it.
      def failed_for_good(job, error)
        keep = job["result"]
        return unless keep.is_a?(Hash)
        store_result(job["jid"], keep, failure: {"class" => error.class.name, "message" => error.message.to_s.scrub[0, JobResult::MAX_MESSAGE]})
      end

      private

      # A cancelled step is dropped unrun; an iterable one interrupted
      # before its cancel drops its saved cursor too, which no run reads now.
      def forget_iteration(instance, jid)
        return unless defined?(Deckhand::IterableJob) && instance.is_a?(Deckhand::IterableJob)
        @outcomes.persist("forgetting a cancelled step's cursor") { Deckhand::IterableJob.states_for(@config).delete(jid) }
      end

      # Perform's value, and whether Active Job enqueued the step's job
      # again as it ran (ActiveJobRejoin).
      def performed(instance, payload, step, token, &)
        return [run(instance, payload, step, token, &), false] unless step && payload["wrapped"]
        ActiveJobRejoin.around(payload) { run(instance, payload, step, token, &) }
      end

      # Its success, with its value: told to its workflow, kept for its waiters.
      def ended(payload, wid, keep, value)
        json = encode(value, payload)
        @outcomes.succeeded(wid, payload["jid"], json) if wid
        store_result(payload["jid"], keep, value_json: json) if keep.is_a?(Hash)
        value
      end

      # A member of a chunk (docs/chunks.md): its value is what
      # perform_chunk gave it (Chunk#result), read from the chunk the
      # instance was given (ChunkCapture); a member cancelled while the
      # chunk ran ends cancelled, as the chunk runner settles it.
      def member(instance, payload, wid, keep, token)
        ChunkCapture.on(instance)
        attempt(payload, wid && [wid, payload["jid"]], token) { yield }
        chunk = instance.deckhand_step_chunk
        return nil if chunk&.cancelled?(payload)
        ended(payload, wid, keep, chunk&.result_of(payload["jid"]))
      end

      # Whether the job runs in a chunk: a server runs every job of a
      # chunked class through perform_chunk (Server::Run::ChunkRunner#chunked?).
      def chunked?(instance, payload)
        return false unless instance.respond_to?(:perform_chunk)
        !!Chunk.for_job(instance.class, payload)
      end

      # The job's return value, whatever the middleware inside this one
      # returns: perform itself is wrapped, on this instance alone.
      # `step`: [wid, jid, config, Extension] for a workflow step, which
      # Workflow.results_of and Workflow.current read, else nil; `token`:
      # this run's (#call).
      def run(instance, payload, step, token)
        value = nil
        instance.define_singleton_method(:perform) { |*args, **kwargs, &block| value = super(*args, **kwargs, &block) }
        previous = Thread.current[CURRENT]
        Thread.current[CURRENT] = step
        begin
          attempt(payload, step, token) do
            yield
            # The steps it added, before its end (a crash between runs it again,
            # and its adds add nothing twice); a refused add fails the step.
            step[3].push if step && step[3].pending? && !(instance.respond_to?(:cancelled?) && instance.cancelled?)
          end
        ensure
          Thread.current[CURRENT] = previous
        end
        value
      end

      # Runs the block; when it raises, tells the step (`step`: its wid and
      # jid first, or nil; `token`: this run's) how it will run again: over
      # a limiter's limit and to be rescheduled
      # (Server::Run::OverLimitHandler), interrupted by
      # a shutdown that hands its job back to its queue, or an iterable job
      # stopped to resume later, it is released again ("q"), else it is
      # failing ("y") and may be retried. A cancel is no failure: its cancel
      # is its end.
      def attempt(payload, step, token)
        yield
      rescue Deckhand::Shutdown
        @outcomes.handed_back(step[0], step[1], token) if step
        raise
      rescue Deckhand::Interrupted
        # An iterable job stopped between two steps (the server stopping,
        # its time budget) goes back to resume from its cursor: released
        # again, so a cancel meanwhile cancels it instead of its resuming.
        @outcomes.interrupted(step[0], step[1], token) if step
        raise
      rescue Deckhand::Cancelled
        raise
      rescue Exception => e # rubocop:disable Lint/RescueException -- told, then re-raised untouched
        if step
          Limiter.next_reschedule(payload, e) ? @outcomes.rescheduled(step[0], step[1], token) : @outcomes.failing(step[0], step[1], token)
        end
        raise
      end

      # JSON of the value, or "null" (logged) when JSON cannot carry it
      # unchanged or it is over max_payload_bytes.
      def encode(value, payload)
        problem = if !Payload::Validator.native?(value, 0)
          "returned #{Payload::Validator.article(value.class)} #{value.class}, which JSON cannot carry unchanged"
        else
          json = JSON.generate(value)
          "returned #{json.bytesize} bytes of JSON, over max_payload_bytes" if json.bytesize > @config.max_payload_bytes
        end
        return json unless problem
        @config.logger.warn("#{payload["class"]} jid=#{payload["jid"]} #{problem}: its result is kept as null; " \
          "return JSON-native values (String keys), like an id")
        "null"
      end

      def store_result(jid, keep, **what)
        ttl_ms = (keep["ttl"].to_f * 1000).ceil
        @outcomes.persist("keeping a job's result") { Store::Features::JobResults.put(@config.store, jid, JobResult.envelope(**what), ttl_ms) }
      end
    end
  end
end
