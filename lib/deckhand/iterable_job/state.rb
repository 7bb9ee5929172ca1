# frozen_string_literal: true

require "json"
require_relative "run_history"

module Deckhand
  module IterableJob
    # One run of an iterable job's saved progress: what it read from
    # `it-<jid>` when it started, the cursor it reached, its running time.
    # Cursors travel as JSON, so a cursor must be made of JSON types.
    #
    #   state = State.new(IterableJob.states_for(config), jid) # reads what an earlier run saved
    #   state.start!                    # one more execution
    #   state.cursor = 41
    #   state.flush                     # => true once someone cancelled the job
    #   state.stopped!("shutdown")      # this run ends: its next flush adds it to the history
    #   state.delete                    # completed: nothing left to resume
    class State
      FLUSH_INTERVAL = 5 # seconds between saves while iterating

      attr_reader :executions, :cursor, :steps, :history

      # states: a RedisStates, or what Deckhand::Testing keeps in memory.
      def initialize(states, jid)
        @states = states
        @jid = jid
        saved = states.load(jid)
        @executions = saved["ex"].to_i
        @cursor = (saved["c"].nil? || saved["c"].empty?) ? nil : JSON.parse(saved["c"])
        @runtime = saved["rt"].to_f
        @steps = saved["dh_steps"].to_i
        @cancelled = !saved["cancelled"].nil?
        @history = RunHistory.parse(saved["dh_runs"])
        @started = Monotonic.now
        @started_at = Time.now.to_f
        @run_steps = @steps
        @flushed = nil
        @ended = false
      end

      # One more execution. Its first step saves at once (the dashboard shows
      # it running, a cancellation is seen), then every FLUSH_INTERVAL.
      def start!
        @executions += 1
        @started = Monotonic.now
        @started_at = Time.now.to_f
        @run_steps = @steps
        @flushed = nil
      end

      # This run ends (reason: see RunHistory); the next flush records it.
      def stopped!(reason, error: nil)
        @history.ended(run: @executions, started_at: @started_at, reason: reason, error: error,
          steps: @steps - @run_steps, cursor: JSON.generate(@cursor))
        @ended = true
      end

      # Whether this is the job's first run.
      def first_run? = @executions == 1

      # Counts one more step of this run.
      def step! = @steps += 1

      # Whether the job was cancelled.
      def cancelled? = @cancelled

      # Seconds this run has iterated.
      def elapsed = Monotonic.now - @started

      # Seconds every run so far has iterated, this one included.
      def runtime = @runtime + elapsed

      def cursor=(cursor)
        unless json_safe?(cursor)
          raise ArgumentError, "an iterable job's cursor must be made of JSON types (nil, String, Integer, Float, " \
            "true, false, Array, Hash with String keys), got #{cursor.inspect[0, 80]}; have the enumerator yield " \
            "[item, cursor] with such a cursor (an id, an offset)"
        end
        @cursor = cursor
      end

      def flush_due? = @flushed.nil? || Monotonic.now - @flushed >= FLUSH_INTERVAL # :nodoc:

      # Saves the cursor, executions and runtime (to the microsecond: a run
      # shorter than a millisecond still adds to it); returns whether the
      # job was cancelled.
      def flush
        cancelled = @states.flush(@jid, executions: @executions,
          cursor: JSON.generate(@cursor), runtime: runtime.round(6), steps: @steps, runs: @ended ? @history.to_json : nil)
        @flushed = Monotonic.now
        @cancelled ||= !cancelled.nil?
      end

      # Forgets the job's saved state.
      def delete = @states.delete(@jid)

      private

      def json_safe?(value)
        case value
        when nil, true, false, String, Integer then true
        when Float then value.finite?
        when Array then value.all? { |v| json_safe?(v) }
        when Hash then value.all? { |k, v| k.is_a?(String) && json_safe?(v) }
        else false
        end
      end
    end
  end
end
