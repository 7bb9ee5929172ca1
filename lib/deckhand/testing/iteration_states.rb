# frozen_string_literal: true

module Deckhand
  module Testing
    # Keeps iterable jobs' progress (IterableJob) in memory in fake and inline
    # mode, so drain and inline runs need no Redis; in disable mode it is
    # Redis, as in production. Same methods as IterableJob::RedisStates.
    # Drop-in mode keeps it in Redis in every mode (keep_in_redis!), as
    # Sidekiq's testing modes do: a test reads it at it-<jid>.
    #
    #   Deckhand::Testing.iterations["b4a5..."]   # => {"ex" => "1", "c" => "3", ...}, while saved
    class IterationStates
      def initialize(testing)
        @testing = testing
        @lock = Mutex.new
        @saved = {}
        @in_redis = false
      end

      # From now on, progress is kept in Redis whatever the mode.
      def keep_in_redis! = @in_redis = true

      # A copy of what is kept for `jid` ({} when nothing).
      def [](jid) = @lock.synchronize { (@saved[jid] || {}).dup }

      # Forgets every saved state.
      def clear = @lock.synchronize { @saved.clear }

      # The saved state of the iterable job `jid`, or nil.
      def load(jid) = redis? ? redis.load(jid) : self[jid]

      # Saves an iterable job's state after a step, as Redis would.
      def flush(jid, executions:, cursor:, runtime:, steps:, runs: nil)
        return redis.flush(jid, executions: executions, cursor: cursor, runtime: runtime, steps: steps, runs: runs) if redis?
        @lock.synchronize do
          fields = (@saved[jid] ||= {})
          fields.merge!("ex" => executions.to_s, "c" => cursor, "rt" => runtime.to_s, "dh_steps" => steps.to_s)
          fields["dh_runs"] = runs if runs
          fields["cancelled"]
        end
      end

      # Marks the job `jid` cancelled at `now`.
      def cancel!(jid, now:)
        return redis.cancel!(jid, now: now) if redis?
        @lock.synchronize { ((@saved[jid] ||= {})["cancelled"] ||= now.to_s).to_i }
      end

      # Forgets the state of the job `jid`.
      def delete(jid)
        return redis.delete(jid) if redis?
        @lock.synchronize { @saved.delete(jid) }
      end

      private

      def redis? = @in_redis || @testing.disabled?

      def redis = IterableJob::RedisStates.new(Deckhand.config.store)
    end
  end
end
