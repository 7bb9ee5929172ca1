# frozen_string_literal: true

require "json"
require_relative "processor_state"
require_relative "basic_fetch"
require_relative "job_retry"
require_relative "interrupt_handler"
require_relative "../component"
require_relative "../job/logger"

module Sidekiq
  # Sidekiq's processor in drop-in mode: `process(unit_of_work)` runs one
  # job the way Sidekiq's processor does, on Deckhand's parts, for code
  # that runs jobs itself (plugins' tests, a custom runner): the job logger
  # (config[:job_logger]), Deckhand's retry handling (JobRetry#global and
  # #local: retry set, dead set, death handlers), WORK_STATE and the
  # PROCESSED and FAILURE counts, the reloader, the capsule's server
  # middleware, an interrupted iterable job put back in its queue; then
  # the unit's `acknowledge`, and the error handlers and the error raised
  # again when the job failed. A job that is not JSON goes to the dead set
  # with its raw bytes. A Deckhand server runs its own processors: this one
  # has no thread of its own (`start` raises Unsupported).
  #
  #   processor = Sidekiq::Processor.new(Sidekiq.default_configuration.default_capsule)
  #   processor.process(Sidekiq::BasicFetch::UnitOfWork.new("queue:default", json))
  class Processor
    include Sidekiq::Component

    # The shutdown interrupt lands only while the job itself runs. By
    # identity and frozen: taken as they are, not copied (Server::Run::JobRunner::MASKED).
    MASKED = {Deckhand::Shutdown => :never}.compare_by_identity.freeze
    UNMASKED = {Deckhand::Shutdown => :immediate}.compare_by_identity.freeze
    private_constant :MASKED, :UNMASKED

    attr_reader :capsule, :thread, :job

    # capsule: a Sidekiq::Capsule (or a Sidekiq::Config: its default
    # capsule). The block is Sidekiq's callback for a processor thread's
    # end, kept for code that passes one.
    def initialize(capsule, &callback)
      @capsule = capsule.respond_to?(:default_capsule) ? capsule.default_capsule : capsule
      @config = @capsule.config
      @callback = callback
      @done = false
      @down = nil
      @thread = nil
      @job = nil
      @reloader = @config[:reloader]
      @job_logger = (@config[:job_logger] || Sidekiq::JobLogger).new(@config)
      @retrier = Sidekiq::JobRetry.new(@capsule)
      @interrupts = Sidekiq::Job::InterruptHandler.new.tap { |handler| handler.config = @config }
    end

    def start
      raise Deckhand::DropIn::Unsupported.new("Sidekiq::Processor#start",
        "a Deckhand server runs jobs on its own processor threads (the `deckhand` command, Sidekiq.configure_embed " \
        "or Sidekiq::Launcher); #process runs one job you hand it")
    end

    # Ends the work of #process_one callers (no thread to wait for).
    def terminate(_wait = false)
      @done = true
      nil
    end

    alias_method :kill, :terminate

    def stopping? = @done

    # Takes one unit from the capsule's fetcher and processes it; a fetch
    # that fails goes to the error handlers (once until one succeeds).
    def process_one
      @job = fetch
      process(@job) if @job
      @job = nil
    end

    def process(unit)
      jobstr = unit.job
      queue = unit.queue_name
      job_hash = parse(jobstr)
      return unreadable(unit, jobstr, queue, job_hash) if job_hash.is_a?(JSON::ParserError)
      acknowledged = false
      Thread.handle_interrupt(MASKED) do
        Thread.handle_interrupt(UNMASKED) { run(job_hash, queue, jobstr) }
        acknowledged = true
      rescue Deckhand::Shutdown
        nil # stopped while running: not acknowledged, it runs again
      rescue Sidekiq::JobRetry::Skip
        acknowledged = true
        raise
      rescue Sidekiq::JobRetry::Handled => e
        acknowledged = true
        error = e.cause || e
        handle_exception(error, {context: "Job raised exception", job: job_hash})
        raise error
      rescue Exception => e # rubocop:disable Lint/RescueException -- whatever got past the retry step is reported, then raised
        handle_exception(e, {context: "Internal exception!", job: job_hash, jobstr: jobstr})
        raise
      ensure
        unit.acknowledge if acknowledged
      end
    end

    def execute_job(instance, args) = instance.perform(*args)

    private

    # The job inside the job logger, the retry step, the stats, the
    # reloader and the middleware, in Sidekiq's order.
    def run(job_hash, queue, jobstr)
      @job_logger.prepare(job_hash) do
        @retrier.global(jobstr, queue) do
          @job_logger.call(job_hash, queue) do
            counted(jobstr, queue) do
              @reloader.call { perform(job_hash, queue, jobstr) }
            end
          end
        end
      end
    end

    def perform(job_hash, queue, jobstr)
      klass = Deckhand::ClassAliases[job_hash["class"]] || Object.const_get(job_hash["class"])
      instance = klass.new
      instance.jid = job_hash["jid"]
      instance._context = self if instance.respond_to?(:_context=)
      instance.deckhand_payload = job_hash if instance.respond_to?(:deckhand_payload=)
      @retrier.local(instance, jobstr, queue) do
        @interrupts.call(instance, job_hash, queue) do
          @capsule.server_middleware.invoke(instance, job_hash, queue) { execute_job(instance, job_hash["args"]) }
        end
      end
    end

    def counted(jobstr, queue)
      tid = Deckhand::Logging::Formatters.tid
      WORK_STATE.set(tid, {queue: queue, payload: jobstr, run_at: Time.now.to_i})
      yield
    rescue Exception # rubocop:disable Lint/RescueException -- every failure counts as one
      FAILURE.incr
      raise
    ensure
      WORK_STATE.delete(tid)
      PROCESSED.incr
    end

    def parse(jobstr)
      JSON.parse(jobstr)
    rescue JSON::ParserError => e
      e
    end

    def unreadable(unit, jobstr, queue, error)
      handle_exception(error, {context: "Invalid JSON for job", jobstr: jobstr})
      Deckhand::DropIn::DirectRetry.new(Deckhand::DropIn::ServerInternal.config_of(@config)).unreadable(jobstr, queue, error.message)
      unit.acknowledge
    end

    def fetch
      work = @capsule.fetcher.retrieve_work
      @down = nil
      return work unless work && @done
      work.requeue
      nil
    rescue Deckhand::Shutdown
      nil
    rescue => e
      unless @down
        @down = Deckhand::Monotonic.now
        handle_exception(e)
      end
      sleep(1)
      nil
    end
  end
end
