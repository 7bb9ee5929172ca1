# frozen_string_literal: true

require "deckhand/logging/logger"

module Sidekiq
  # Sidekiq's log context in drop-in mode: Deckhand's (what
  # Deckhand::Logging::Logger.with_context sets), so the fields show on every
  # line Deckhand's formatters and Sidekiq's write in this thread.
  #
  #   Sidekiq::Context.with(tenant: "acme") { logger.info("syncing") }
  #   # ... tenant=acme INFO: syncing
  module Context
    KEY = :deckhand_log_context

    def self.current = (Thread.current[KEY] ||= {})

    def self.with(fields)
      previous = current.dup
      current.merge!(fields)
      yield
    ensure
      Thread.current[KEY] = previous
    end

    def self.add(key, value)
      current[key] = value
    end
  end
end
