# frozen_string_literal: true

module Deckhand
  # Every error Deckhand raises on purpose descends from this, so an application can
  # rescue Deckhand's failures without rescuing its own.
  class Error < StandardError
    # Also true for redis-client's own error standing for a Deckhand error
    # (ForeignError: what drop-in mode raises), so that `rescue
    # Deckhand::ConnectionError` still catches it.
    def self.===(other) = super || (other.is_a?(ForeignError) && super(other.deckhand_error))

    # A copy of any exception with another message, its cause and
    # backtrace kept, for messages that add what Deckhand knows. MRI's
    # Exception#exception keeps the cause; JRuby's copy has none, and
    # raising it with `cause:` is the one way to give it back.
    #
    #   Deckhand::Error.reworded(error, "#{error.message}: more")   # same class, cause and backtrace
    def self.reworded(error, message)
      copy = error.exception(message)
      return copy if copy.cause.equal?(error.cause)
      copy = begin
        raise copy, cause: error.cause
      rescue Exception => raised # rubocop:disable Lint/RescueException -- the copy raised just above, whatever its class
        raised
      end
      copy.set_backtrace(error.backtrace) if error.backtrace
      copy
    end
  end

  # Mixed into redis-client's own error when drop-in mode raises it in place
  # of the Deckhand::RedisError it stands for: code written for Sidekiq
  # rescues redis-client's errors (RedisClient::ConnectionError,
  # RedisClient::CommandError), code written for Deckhand rescues
  # Deckhand's, and both catch it. Its message is the Deckhand error's;
  # `deckhand_error` is that error, PushIncomplete's readers carried over.
  #
  #   rescue RedisClient::ConnectionError => e   # or rescue Deckhand::ConnectionError
  #     e.deckhand_error   # => the Deckhand::ConnectionError
  #     e.transient?       # => true
  module ForeignError
    attr_reader :deckhand_error

    # Whether trying again later may succeed (the Deckhand error's answer).
    def transient? = deckhand_error.transient?
  end

  # A configuration value is missing, malformed or set too late.
  class ConfigError < Error; end

  # A queue move (Store::Tags::QueueMove) could not go on: the message says why
  # and what to do.
  class PlacementError < Error; end

  # Redis failed us. The store translates every error of the Redis client into
  # one of these at its door, the original kept as `cause`, so callers never see
  # a foreign error and can tell a passing fault from one that needs a human.
  #
  #   begin
  #     store.call("LPUSH", "queue:default", payload)
  #   rescue Deckhand::RedisError => e
  #     e.transient?  # => true when waiting and retrying will do
  #   end
  class RedisError < Error
    # True when the same command may well succeed if tried again in a moment
    # (no connection, a timeout, a server still loading): back off and retry,
    # logging once per outage. False when Redis refused the command itself and
    # keeps refusing until someone fixes something (the message says what).
    def transient? = false
  end

  # Redis could not be reached, did not answer in time, or dropped the
  # connection. Transient.
  class ConnectionError < RedisError
    # True: trying again later may succeed.
    def transient? = true

    # What the Redis client saw ("Connection refused - connect(2) for
    # 10.0.0.5:6379"), without the advice the message adds for a process
    # that starts; the message when nothing is behind it.
    def reason = cause ? cause.message : message
  end

  # Redis answered with an error that retrying alone will not cure: out of
  # memory, a read-only replica, a key holding the wrong type, a refused
  # password. `code` is Redis' error code ("OOM", "WRONGTYPE"), `key` the key of
  # the failing command when there was one.
  class CommandError < RedisError
    attr_reader :code, :key

    def initialize(message = nil, code: nil, key: nil)
      super(message)
      @code = code
      @key = key
    end
  end

  # A push reached the Redis primary but fewer replicas than push_replicas
  # acknowledged it in time (Store::Connection::Durability): the jobs are queued and
  # will run, but a failover before replication catches up could lose them.
  # Pushing again would queue them twice.
  #
  #   rescue Deckhand::NotReplicated => e
  #     e.jids          # => ["b4a5..."]: queued, not yet on enough replicas
  #     e.acknowledged  # => 0 (replicas that had it), e.wanted # => 1
  class NotReplicated < RedisError
    attr_reader :acknowledged, :wanted, :jids

    def initialize(message = nil, acknowledged: nil, wanted: nil, jids: [])
      super(message)
      @acknowledged = acknowledged
      @wanted = wanted
      @jids = jids
    end
  end

  # The Redis server lacks a command Deckhand needs.
  class UnsupportedRedisError < RedisError; end

  # A job whose class this process cannot find. It fails and retries: during a
  # rolling deploy, old processes may fetch jobs only new code knows.
  class UnknownJobClass < Error; end

  # A payload naming a class that is not a job (Deckhand::JobClasses says
  # which are): it is never built. A server records it as the error_class of
  # the dead set entry that keeps the payload's raw bytes; the testing modes
  # raise it where they would run the job.
  class NotAJobClass < Error; end

  # Recorded as the error_class of an entry that was not a valid job (bad JSON,
  # missing fields). Never raised into application code.
  class CorruptPayload < Error; end

  # A wait for a job's kept result (Deckhand::JobResult.wait) or for a
  # workflow's end (Deckhand::Workflow#wait) ran out of time: the job has not
  # run yet or runs still, or its value expired, or its class keeps none.
  class ResultTimeout < Error; end

  # The job waited for (Deckhand::JobResult.wait) failed for good: it died,
  # or was dropped. `error_class` names its error's class.
  class JobFailed < Error
    attr_reader :error_class

    def initialize(message, error_class: nil)
      super(message)
      @error_class = error_class
    end
  end

  # Recorded as the error_class of a job that kept killing the process running it.
  class PoisonPill < Error; end

  # Recorded as the error_class of a job whose worker thread ended while running
  # it (the job called Thread.exit, or an error escaped the failure path). The
  # job is retried like any failure; the thread is replaced. Never raised.
  class ThreadDied < Error; end

  # Given to death handlers for a job someone killed by hand (the dashboard's
  # Kill, API::JobSet#kill): it did not run out of retries, but it is dead.
  # Never raised.
  class KilledByHand < Error; end

  # A job that is invalid at push time: args that JSON cannot carry faithfully,
  # a missing class, an empty queue name, an oversize payload.
  class InvalidJob < Error; end

  # A unique job (unique_for) pushed with on_conflict: :raise while another
  # job holds its lock. `holder` is that job's jid, `key` the lock.
  #
  #   MyJob.set(on_conflict: :raise).perform_async(1)
  #   rescue Deckhand::NotUnique => e
  #     e.holder  # => "b4a5..."
  class NotUnique < Error
    attr_reader :holder, :key

    def initialize(message = nil, holder: nil, key: nil)
      super(message)
      @holder = holder
      @key = key
    end
  end

  # A job whose encrypted argument cannot be read: no key for its version, or
  # an envelope that does not decrypt. It fails and retries (the key may come
  # with the next deploy).
  class DecryptionError < Error; end

  # Raised inside a processor thread when the server gives up waiting for its job
  # during shutdown. Deliberately not a StandardError: `rescue => e` in a job must
  # not swallow it.
  class Shutdown < ::Interrupt; end

  # Raised inside a running job that was cancelled (Deckhand::Client.cancel)
  # and did not stop within its grace period: its ensure blocks run, and the
  # job is recorded as cancelled, never retried. Like Shutdown, no
  # StandardError, so `rescue => e` in a job does not swallow it.
  class Cancelled < ::Interrupt; end

  # Matches what code an application hands Deckhand (a handler, a hook, a
  # block) may raise and Deckhand contains: any exception but the shutdown
  # interrupt. A NotImplementedError (a ScriptError) is no StandardError, so
  # `rescue => e` lets it through, and it would end the thread that called
  # the handler; the job's outcome stands whatever its handlers do.
  #
  #   begin
  #     handler.call(job, error)
  #   rescue Deckhand::AppError => e
  #     logger.error("death handler raised #{e.class}: #{e.message}")
  #   end
  module AppError
    # Any exception but Deckhand's shutdown signal.
    def self.===(error) = error.is_a?(::Exception) && !error.is_a?(Shutdown)
  end

  # Raised by an iterable job (Deckhand::IterableJob) that stopped between two
  # iterations, its cursor saved, because the server is stopping or the job
  # used its max_iteration_runtime. The server puts the job back, unchanged
  # and without consuming a retry, to resume from its cursor. Never a failure.
  class Interrupted < Error; end
end

require_relative "push_incomplete"
