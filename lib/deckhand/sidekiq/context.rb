# frozen_string_literal: true

require "deckhand/logging/logger"

module Sidekiq
  # Sidekiq's log context in drop-in mode. Its Hash lives where Sidekiq keeps
  # it (Thread.current[:sidekiq_context]) and is also Deckhand's log context
  # (what Deckhand::Logging::Logger.with_context sets), so its fields show on
  # every line Deckhand's formatters and Sidekiq's write in this thread.
  #
  #   Sidekiq::Context.with(tenant: "acme") { logger.info("syncing") }
  #   # ... tenant=acme INFO: syncing
  module Context
    KEY = :sidekiq_context
    DECKHAND_KEY = :deckhand_log_context

    def self.current
      fields = (Thread.current[KEY] ||= {})
      Thread.current[DECKHAND_KEY] = fields unless Thread.current[DECKHAND_KEY].equal?(fields)
      fields
    end

    # Puts `fields` (a Hash, or nil for none) in place of the thread's context.
    def self.replace(fields)
      Thread.current[KEY] = fields
      Thread.current[DECKHAND_KEY] = fields
    end

    def self.with(fields)
      previous = current.dup
      current.merge!(fields)
      yield
    ensure
      replace(previous)
    end

    def self.add(key, value)
      current[key] = value
    end
  end
end
