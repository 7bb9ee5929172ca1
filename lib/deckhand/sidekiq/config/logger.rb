# frozen_string_literal: true

require "logger"
require "time"
require_relative "../context"
require_relative "logger_formatters"

module Sidekiq
  # Levels a thread can lower for a while (`log_at`, as a job's `log_level`
  # option does), for any ::Logger: Sidekiq::Logger includes it, and an
  # application's logger can be extended with it.
  module LoggingUtils
    LEVELS = {"debug" => 0, "info" => 1, "warn" => 2, "error" => 3, "fatal" => 4}.freeze
    THREAD_LEVEL = :deckhand_sidekiq_log_level

    LEVELS.each do |name, number|
      define_method(:"#{name}?") { local_level.nil? ? super() : local_level <= number }
    end

    def local_level = Thread.current[THREAD_LEVEL]

    def local_level=(level)
      Thread.current[THREAD_LEVEL] = case level
      when Integer, nil then level
      when Symbol, String then LEVELS.fetch(level.to_s) { raise ArgumentError, "Invalid log level: #{level.inspect}" }
      else raise ArgumentError, "Invalid log level: #{level.inspect}"
      end
    end

    def level = local_level || super

    # Logs at `level` in this thread while the block runs.
    def log_at(level)
      previous = local_level
      self.local_level = level
      yield
    ensure
      self.local_level = previous
    end
  end

  # Sidekiq's logger class in drop-in mode: Ruby's Logger with LoggingUtils.
  # Deckhand's own logger (Deckhand::Logging::Logger) is a plain ::Logger;
  # either can be given to `config.logger =`.
  #
  #   logger = Sidekiq::Logger.new($stdout, level: :info)
  #   logger.formatter = Sidekiq::Logger::Formatters::JSON.new
  #   logger.log_at(:debug) { logger.debug("shown") }
  class Logger < ::Logger
    include LoggingUtils
  end
end
