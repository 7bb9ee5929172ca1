# frozen_string_literal: true

require "json"
require "time"
require "deckhand/logging/formatters"

module Sidekiq
  class Logger < ::Logger
    # Sidekiq's log formatters in drop-in mode, set in initializers
    # (`config.logger.formatter = Sidekiq::Logger::Formatters::JSON.new`).
    # They print the running job (class, jid) and the log context
    # (Sidekiq::Context) as Deckhand's own formatters do, in Sidekiq's layout.
    #
    #   2026-11-22T10:00:00.123Z pid=4242 tid=2ft class=HardJob jid=ab12 INFO: done
    module Formatters
      class Base < ::Logger::Formatter
        def tid = Deckhand::Logging::Formatters.tid

        # The running job and the log context (Sidekiq::Context.current first
        # puts the thread's Sidekiq context where Deckhand's formatters read).
        def ctx
          Context.current
          Deckhand::Logging::Formatters.context
        end

        def format_context(context = ctx)
          fields = context.compact
          return "" if fields.empty?
          " " + fields.map { |key, value| "#{key}=#{value.is_a?(Array) ? value.join(",") : value}" }.join(" ")
        end
      end

      class Pretty < Base
        def call(severity, time, _program, message)
          "#{time.utc.iso8601(3)} pid=#{::Process.pid} tid=#{tid}#{format_context} #{severity}: #{message}\n"
        end
      end

      # Sidekiq 8's uncoloured line, its level first.
      class Plain < Base
        def call(severity, time, _program, message)
          "#{severity} #{time.utc.iso8601(3)} pid=#{::Process.pid} tid=#{tid}#{format_context}: #{message}\n"
        end
      end

      # For hosts that stamp each line themselves (Heroku).
      class WithoutTimestamp < Pretty
        def call(severity, _time, _program, message)
          "pid=#{::Process.pid} tid=#{tid}#{format_context} #{severity}: #{message}\n"
        end
      end

      class JSON < Base
        def call(severity, time, _program, message)
          entry = {ts: time.utc.iso8601(3), pid: ::Process.pid, tid: tid, lvl: severity, msg: message}
          context = ctx
          entry[:ctx] = context unless context.empty?
          ::JSON.generate(entry) << "\n"
        end
      end
    end
  end
end
