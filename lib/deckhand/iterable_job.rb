# frozen_string_literal: true

require_relative "job"
require_relative "lifecycle"
require_relative "iterable_job/state"
require_relative "iterable_job/redis_states"
require_relative "iterable_job/enumerators"

module Deckhand
  # A job that walks a collection in steps and saves a cursor as it goes, so a
  # deploy (TERM) or its time budget stops it between two steps and it resumes
  # from the cursor instead of starting over. The same shape and Redis state
  # (`it-<jid>`) as Sidekiq::IterableJob: a job interrupted on either resumes
  # on the other.
  #
  #   class BackfillJob
  #     include Deckhand::IterableJob
  #     deckhand_options max_iteration_runtime: 300 # seconds per run, then resume later
  #
  #     def build_enumerator(account_id, cursor:)
  #       active_record_records_enumerator(Account.find(account_id).orders, cursor: cursor)
  #     end
  #
  #     def each_iteration(order, account_id)
  #       order.recompute_totals!
  #     end
  #
  #     def on_complete = Notifier.backfill_done(arguments.first)
  #   end
  #
  #   jid = BackfillJob.perform_async(7)
  #   Deckhand::IterableJob.cancel!(jid)   # or Deckhand::Client.cancel!(jid)
  #
  # The enumerator yields `[item, cursor]`; the cursor saved is that of the
  # item about to run, so a job stopped between steps runs no item twice.
  # Callbacks: on_start (first run), on_resume (later runs), around_iteration,
  # on_stop (every run's end), then on_complete or on_cancel. An error in a
  # step takes the normal retry path and resumes from the last saved cursor.
  # See docs/iterable.md.
  module IterableJob
    include Enumerators

    # Job goes in first, so IterableJob's cancelled? comes before Job's.
    def self.append_features(base)
      base.include(Job)
      super
    end

    # Makes the including class a job (Deckhand::Job) that iterates.
    def self.included(base)
      base.extend(ClassMethods)
      ClassMethods.refuse_perform!(base) if base.method_defined?(:perform, false) || base.private_method_defined?(:perform, false)
    end

    # Asks the job to stop at its next check (within a few seconds); it then
    # runs on_cancel and ends without error. Returns when it was first cancelled.
    def self.cancel!(jid, config: Deckhand.config) = states_for(config).cancel!(jid, now: config.store.clock.now.to_i)

    class << self
      # What keeps progress in place of Redis when set (Deckhand::Testing's
      # in-memory keeper); nil means Redis.
      attr_accessor :states

      def states_for(config) = states || RedisStates.new(config.store) # :nodoc:
    end

    # The class side of an iterable job (extended into it).
    module ClassMethods
      def self.refuse_perform!(klass) # :nodoc:
        raise ArgumentError, "#{klass} is an iterable job and must not define #perform: define " \
          "build_enumerator(*args, cursor:) and each_iteration(item, *args) instead"
      end

      def method_added(name) # :nodoc:
        ClassMethods.refuse_perform!(self) if name == :perform
        super
      end
    end

    # The job's arguments (frozen).
    def arguments = @deckhand_arguments

    # The cursor of the item being processed (or where this run resumed).
    def cursor = @deckhand_state&.cursor

    # The item being processed.
    def current_object = @deckhand_current_object

    # Whether this job was cancelled: seen by its run, or asked by #cancel! on this object.
    # A cancel the server saw (Client.cancel) counts too.
    def cancelled? = !!(@deckhand_cancelled || @deckhand_cancel_seen || @deckhand_state&.cancelled?)

    # Cancels this job (its jid); returns when it was first cancelled.
    def cancel! = @deckhand_cancelled ||= IterableJob.cancel!(jid)

    # Override it: an Enumerator of [item, cursor] pairs from `cursor` on (nil: the start).
    def build_enumerator(*, cursor:)
      raise NotImplementedError, "#{self.class} must implement a '#build_enumerator' method: " \
        "build_enumerator(*args, cursor:) returning an Enumerator"
    end

    # Override it: does one step with `item` (and the job's arguments).
    def each_iteration(*)
      raise NotImplementedError, "#{self.class} must implement an '#each_iteration' method: each_iteration(item, *args)"
    end

    # Called before the first step of the job's first run. Override it; the default does nothing (docs/iterable.md).
    def on_start = nil

    # Called before the first step of every later run, which resumes from the saved cursor.
    def on_resume = nil

    # Called at the end of every run: completed, interrupted (a shutdown, max_iteration_runtime) or cancelled.
    def on_stop = nil

    # Called after the last step (or a `throw :abort`, which ends the job as complete).
    def on_complete = nil

    # Called once the job sees it was cancelled; it then ends without error.
    def on_cancel = nil

    # Wraps each step, and must yield: `def around_iteration = ActiveRecord::Base.transaction { yield }`.
    def around_iteration = yield

    # Asked before each step: true stops this run between two steps, and
    # the job resumes from its cursor, as when the server stops (Sidekiq's
    # hook of the same name; a job may override it).
    def interrupted? = false

    # Runs by the server; an iterable job defines the steps, not this.
    def perform(*args)
      @deckhand_arguments = args.dup.freeze
      state = @deckhand_state = State.new(IterableJob.states_for(Deckhand.config), jid)
      state.start!
      return deckhand_cancelled_at_start(state) if state.cancelled?
      enumerator = build_enumerator(*args, cursor: state.cursor)
      if enumerator.nil?
        Deckhand.logger.debug { "#{self.class} jid=#{jid}: '#build_enumerator' returned nil, skipping the job." }
        return deckhand_finish(state, :complete)
      end
      deckhand_check_enumerator!(enumerator)
      # Read once a run, not once a step.
      @deckhand_budget = self.class.deckhand_options["max_iteration_runtime"] || Deckhand.config.max_iteration_runtime
      @deckhand_timeout = Deckhand.config.timeout
      state.first_run? ? on_start : on_resume
      outcome = catch(:abort) { deckhand_iterate(state, enumerator, args) } || :complete
      on_stop
      deckhand_finish(state, outcome)
    end

    private

    def deckhand_iterate(state, enumerator, args)
      iterating = false
      done = 0
      enumerator.each do |object, cursor|
        iterating = true
        state.cursor = cursor
        if (why = deckhand_stop?(state, done))
          state.stopped!(why)
          return :interrupted
        end
        return :cancelled if @deckhand_cancel_seen || (state.flush_due? && state.flush)
        @deckhand_current_object = object
        deckhand_step(object, args)
        state.step!
        done += 1
      end
      Deckhand.logger.debug { "#{self.class} jid=#{jid}: Enumerator found nothing to iterate" } unless iterating
      :complete
    rescue Exception => e # rubocop:disable Lint/RescueException -- an error or the shutdown interrupt: save the cursor, then let it go on
      if iterating
        Thread.handle_interrupt(Deckhand::Shutdown => :never) do
          e.is_a?(Deckhand::Shutdown) ? state.stopped!("shutdown") : state.stopped!("error", error: e.class.name)
          deckhand_save(state)
        end
      end
      raise
    end

    # A step longer than the shutdown timeout is cut short at every deploy
    # (and runs again): worth a warning, once per run.
    def deckhand_step(object, args)
      started = Monotonic.now
      around_iteration { each_iteration(object, *args) }
      took = Monotonic.now - started
      timeout = @deckhand_timeout
      return if took <= timeout || @deckhand_warned
      @deckhand_warned = true
      Deckhand.logger.warn("#{self.class} jid=#{jid}: a step took #{took.round(1)}s, more than the shutdown timeout " \
        "(#{timeout}s): a deploy interrupts it and it runs again. Make each step smaller (batch_size)")
    end

    # Stops when the server is stopping, the job says it is interrupted, or when this run used its time
    # budget (after one step at least, so every run makes progress): returns
    # why (a RunHistory reason), or nil to go on.
    # A job that defines interrupted? (Sidekiq's name, which drop-in mode's
    # jobs have) is asked too.
    def deckhand_stop?(state, done)
      return "shutdown" if Lifecycle.stopping?
      return "interrupted" if respond_to?(:interrupted?) && interrupted?
      limit = @deckhand_budget
      "time_budget" if limit && done.positive? && state.elapsed >= limit
    end

    def deckhand_finish(state, outcome)
      # The save tells whether someone cancelled meanwhile: then the job ends.
      # A save that fails (Redis away) still hands the job back: it resumes
      # from the last cursor saved, and consumes no retry.
      outcome = :cancelled if outcome == :interrupted && deckhand_save(state)
      case outcome
      when :interrupted
        raise Interrupted, "#{self.class} jid=#{jid} stopped at cursor #{JSON.generate(state.cursor)[0, 200]}; it resumes from there"
      when :cancelled
        deckhand_cancelled
        state.delete
      when :complete
        on_complete
        state.delete
        Deckhand.logger.debug { "#{self.class} jid=#{jid}: Completed iteration. steps=#{state.steps} runtime=#{state.runtime.round(3)}s" }
      else
        raise ArgumentError, "#{self.class}: throw :abort takes no value (got #{outcome.inspect}); it ends the job as complete"
      end
      nil
    end

    # A job cancelled before this run began ends at once: on_cancel only.
    def deckhand_cancelled_at_start(state) = deckhand_finish(state, :cancelled)

    # What a cancelled job runs as it ends.
    def deckhand_cancelled = on_cancel

    # Saves the cursor; true when the job was cancelled, nil when Redis failed.
    def deckhand_save(state)
      state.flush
    rescue => e
      Deckhand.logger.warn("#{self.class} jid=#{jid}: could not save its cursor (#{e.class}: #{e.message}); it resumes from the last one saved")
    end

    def deckhand_check_enumerator!(enumerator)
      return if enumerator.is_a?(Enumerator)
      raise ArgumentError, "#{self.class}#build_enumerator must return an Enumerator, but returned #{enumerator.class}: " \
        "an Enumerator yielding [item, cursor]; use a helper (array_enumerator(list, cursor: cursor), " \
        "active_record_records_enumerator(Model.all, cursor: cursor)) or Enumerator.new"
    end
  end
end
