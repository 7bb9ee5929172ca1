# frozen_string_literal: true

require "logger"
require "json"
require_relative "formatters"

module Deckhand
  # Deckhand's log lines: the logger it builds, and the job context they carry.
  module Logging
    # Builds Deckhand's logger: Ruby's Logger with a formatter that stamps each
    # line with the time, pid, thread and the current job's jid and class.
    #
    #   Deckhand.configure { |c| c.logger = Deckhand::Logging::Logger.build($stdout, format: :json) }
    module Logger
      module_function

      # A Logger writing to `io` plain lines, or one JSON object a line (`format: :json`).
      #
      #   logger = Deckhand::Logging::Logger.build($stderr, format: :json, level: Logger::DEBUG)
      def build(io = $stdout, format: :plain, level: ::Logger::INFO)
        logger = ::Logger.new(io, level: level)
        logger.formatter = (format.to_sym == :json) ? Formatters::JSON.new : Formatters::PlainText.new
        logger
      end

      # Tags log lines written by this thread while the block runs.
      def with_context(context)
        previous = Thread.current[:deckhand_log_context]
        Thread.current[:deckhand_log_context] = context
        yield
      ensure
        Thread.current[:deckhand_log_context] = previous
      end
    end
  end
end
