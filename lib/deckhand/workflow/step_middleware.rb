# frozen_string_literal: true

require "json"

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
    # success is told. Other jobs pay two Hash lookups.
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
        return nil if wid && !RUN.include?(@outcomes.starting(wid, jid))
        extension = wid && Extension.new(wid, jid, payload["wrapped"] || payload["class"], @config)
        value = run(instance, wid && [wid, jid, @config, extension]) { yield }
        json = encode(value, payload)
        # Cancelled as perform returned: the cancel is its end (Outcomes#cancelled).
        return value if wid && instance.respond_to?(:cancelled?) && instance.cancelled?
        @outcomes.succeeded(wid, jid, json) if wid
        store_result(jid, keep, value_json: json) if keep.is_a?(Hash)
        value
      end

      # A job that keeps its value failed for good: its waiters learn it.
      def failed_for_good(job, error)
        keep = job["result"]
        return unless keep.is_a?(Hash)
        store_result(job["jid"], keep, failure: {"class" => error.class.name, "message" => error.message.to_s.scrub[0, JobResult::MAX_MESSAGE]})
      end

      private

      # The job's return value, whatever the middleware inside this one
      # returns: perform itself is wrapped, on this instance alone.
      # `step`: [wid, jid, config, Extension] for a workflow step, which
      # Workflow.results_of and Workflow.current read, else nil.
      def run(instance, step)
        value = nil
        instance.define_singleton_method(:perform) { |*args, **kwargs, &block| value = super(*args, **kwargs, &block) }
        previous = Thread.current[CURRENT]
        Thread.current[CURRENT] = step
        begin
          yield
          # The steps it added, before its end (a crash between runs it again,
          # and its adds add nothing twice); a refused add fails the step.
          step[3].push if step && step[3].pending? && !(instance.respond_to?(:cancelled?) && instance.cancelled?)
        rescue Deckhand::Shutdown, Deckhand::Interrupted, Deckhand::Cancelled, Limiter::OverLimit # it runs again, or its cancel is its end: no failure
          raise
        rescue Exception # rubocop:disable Lint/RescueException -- told, then re-raised untouched
          @outcomes.failing(step[0], step[1]) if step
          raise
        ensure
          Thread.current[CURRENT] = previous
        end
        value
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
