# frozen_string_literal: true

module Deckhand
  # Every error Deckhand raises on purpose descends from this, so an application can
  # rescue Deckhand's failures without rescuing its own.
  class Error < StandardError; end

  # A configuration value is missing, malformed or set too late.
  class ConfigError < Error; end

  # Redis could not be reached or answered with something we cannot work with.
  class ConnectionError < Error; end

  # The Redis server lacks a command Deckhand needs.
  class UnsupportedRedisError < Error; end

  # A job whose class this process cannot find. It fails and retries: during a
  # rolling deploy, old processes may fetch jobs only new code knows.
  class UnknownJobClass < Error; end

  # Recorded as the error_class of an entry that was not a valid job (bad JSON,
  # missing fields). Never raised into application code.
  class CorruptPayload < Error; end

  # Recorded as the error_class of a job that kept killing the process running it.
  class PoisonPill < Error; end

  # Given to death handlers for a job someone killed by hand (the dashboard's
  # Kill, API::JobSet#kill): it did not run out of retries, but it is dead.
  # Never raised.
  class KilledByHand < Error; end

  # A job that is invalid at push time: args that JSON cannot carry faithfully,
  # a missing class, an empty queue name, an oversize payload. It is an
  # ArgumentError because the caller passed the wrong thing.
  class InvalidJob < ::ArgumentError; end

  # Raised inside a processor thread when the server gives up waiting for its job
  # during shutdown. Deliberately not a StandardError: `rescue => e` in a job must
  # not swallow it.
  class Shutdown < ::Interrupt; end
end
