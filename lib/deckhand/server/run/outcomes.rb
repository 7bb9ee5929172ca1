# frozen_string_literal: true

module Deckhand
  module Server
    module Run
      # Records what became of one job, once: a success acknowledged through
      # the fetcher, a failure's retry or dead record written with the job's
      # mark before the fetcher counts it settled, a payload no one can read
      # or a class that is no job buried with its raw bytes. A job runner
      # settles each job it runs through here, and a chunk each member
      # (Run::ChunkRunner), so a member of a chunk retries, dies and counts
      # exactly as a job run alone. Whatever raises while a failure is
      # recorded leaves the job in the dead set as fetched, never the thread
      # dead (#record).
      #
      #   outcomes = Outcomes.new(config: config, fetcher: fetcher, stats: stats, gate: gate, retries: retries, classes: classes)
      #   job = outcomes.decode(unit) or return   # nil: it was corrupt, and is in the dead set
      #   outcomes.success(unit, job, 1.2)        # => :success
      #   outcomes.successes([[unit, job], ...], 1.2) # a chunk's members that succeeded
      #   outcomes.failure(unit, job, error, 1.2) # => :retry, :dead, :dropped or :rescheduled
      class Outcomes
        def initialize(config:, fetcher:, stats:, gate:, retries:, classes:)
          @config = config
          @logger = config.logger
          @fetcher = fetcher
          @stats = stats
          @gate = gate
          @retries = retries
          @classes = classes
          @over_limit = Run::OverLimitHandler.new(retries: retries, logger: @logger)
          @lines = config.job_log_lines
        end

        def decode(unit)
          Payload.decode(unit.payload)
        rescue Payload::Decoder::Invalid => e
          @logger.error("corrupt payload in queue #{unit.queue}: #{e.message}; moved to the dead set with its raw bytes")
          @retries.corrupt(unit, e.message)
          @fetcher.done(unit, marked: true)
          nil
        end

        def success(unit, job, elapsed)
          @fetcher.done(unit, unlock: @gate.unlock_unit(unit, job))
          @stats.metrics.record(job["wrapped"] || job["class"], elapsed, false)
          @logger.info("done #{elapsed.round(1)}ms") if @lines && @logger.info?
          :success
        end

        # A chunk's members that succeeded, settled as #success settles each,
        # told to the fetcher and counted in its metrics at once.
        def successes(members, elapsed)
          return if members.empty?
          @fetcher.done_all(members.map(&:first), members.map { |unit, job| @gate.unlock_unit(unit, job) })
          job = members.first[1]
          @stats.metrics.record(job["wrapped"] || job["class"], elapsed, false, members.size)
          members.size.times { @logger.info("done #{elapsed.round(1)}ms") } if @lines && @logger.info?
        end

        def failure(unit, job, error, elapsed)
          error = @gate.redact(job, error)
          @stats.metrics.record(job["wrapped"] || job["class"], elapsed, true)
          @stats.metrics.record_error(error.class.name || "(anonymous)")
          outcome = record(unit, job, error, elapsed)
          @fetcher.done(unit, marked: true)
          notify_error(error, job) if unit.recorded == :written && outcome != :rescheduled
          outcome
        end

        # An iterable job stopped between steps (IterableJob): back to its queue
        # as it was, through the schedule (due now), with no retry consumed.
        def handed_back(unit, error)
          @logger.info(error.message) if @logger.info?
          @retries.resume(unit)
          @fetcher.done(unit, marked: true)
          :interrupted
        end

        # A payload whose class is no job (JobClasses): never built, kept in
        # the dead set as it was fetched, like a corrupt payload.
        def refused(unit, error)
          @logger.error("#{error.message}; moved to the dead set with its raw bytes")
          @retries.corrupt(unit, error.message, error_class: NotAJobClass.name)
          @fetcher.done(unit, marked: true)
          :dead
        end

        # The job of a worker that died holding it: a failure like any other,
        # so it retries or dies by its own rules; one whose outcome the dead
        # worker already wrote is only counted settled.
        def abandoned(unit, error)
          settle_abandoned(unit, error) unless unit.recorded
          @fetcher.done(unit, marked: true)
        end

        # As UTF-8, so a log line never raises on it.
        def safe_message(error)
          FailedPayload.utf8(error.message)
        rescue Exception # rubocop:disable Lint/RescueException -- an error whose message raises still gets reported
          "(its message could not be read)"
        end

        private

        # What became of the failed job. Whatever raises on the way (a bug on
        # the failure path, an object in the payload no one can write) ends
        # neither the thread nor the job: it goes to the dead set as it was
        # fetched, unless its outcome is written already.
        def record(unit, job, error, elapsed)
          rescheduled = @over_limit.call(unit, job, error) and return rescheduled # a limiter said "later": not a failure
          @logger.warn("fail #{elapsed.round(1)}ms: #{error.class}: #{safe_message(error)}") if @lines && @logger.warn?
          @retries.failed(unit, job, @classes.retry_class(job["class"]), error)
        rescue Deckhand::Shutdown
          raise
        rescue Exception => e # rubocop:disable Lint/RescueException -- the outcome must be written, the thread go on
          last_resort(unit, e, error.class.name)
        end

        # After recording a failure raised `problem`: nothing more when the
        # outcome was written, else the job to the dead set as fetched.
        def last_resort(unit, problem, error_class)
          problem = "#{problem.class}: #{safe_message(problem)}"
          if unit.recorded
            @logger.error("after its failure was recorded, #{problem}")
            return nil
          end
          @logger.error("recording the failure raised #{problem}; the job goes to the dead set as it was fetched")
          @retries.corrupt(unit, "its failure could not be recorded (#{problem})", error_class: error_class)
        end

        def settle_abandoned(unit, error)
          job = decode(unit) or return
          cause = error.is_a?(ThreadDied) ? error : ThreadDied.new("#{error.class}: #{safe_message(error)}")
          died = ThreadDied.new("the worker thread running this job ended before recording its outcome (#{cause.message})")
          @logger.error("#{job["class"]} jid=#{job["jid"]}: #{died.message}; retrying it as a failure")
          @retries.failed(unit, job, @classes.retry_class(job["class"]), died)
        rescue Deckhand::Shutdown
          raise
        rescue Exception => e # rubocop:disable Lint/RescueException -- the last resort must settle the job
          last_resort(unit, e, ThreadDied.name)
        end

        # Once per recorded failure. A handler's error, whatever its class, is
        # logged: the job's outcome stands and the thread goes on.
        def notify_error(error, job)
          @config.error_handlers.each do |handler|
            handler.call(error, {"context" => "job", "job" => job})
          rescue Deckhand::AppError => e # a handler's bug must not unsettle a job
            @logger.error("error handler raised #{e.class}: #{safe_message(e)}")
          end
        end
      end
    end
  end
end
