# frozen_string_literal: true

require "json"
require "time"
require "deckhand/logging/formatters"

module Sidekiq
  class Logger < ::Logger
    # Sidekiq's log formatters in drop-in mode, set in initializers
    # (`config.logger.formatter = Sidekiq::Logger::Formatters::JSON.new`).
    # They print the running job (class, jid) and the log context
    # (Sidekiq::Context) as Deckhand's own formatters do, in the layout of
    # the Sidekiq version drop-in mode stands in for: Sidekiq 8's Pretty
    # line leads with its level, coloured; 7.3's puts it before the message.
    #
    #   \e[1;34mINFO \e[0m 2026-11-22T10:00:00.123Z pid=4242 tid=2ft class=HardJob jid=ab12: done   (8)
    #   2026-11-22T10:00:00.123Z pid=4242 tid=2ft class=HardJob jid=ab12 INFO: done                  (7)
    module Formatters
      class Base < ::Logger::Formatter
        # ANSI colours of Sidekiq 8's levels.
        COLOURS = {"DEBUG" => 32, "INFO" => 34, "WARN" => 33, "ERROR" => 31, "FATAL" => 35}.freeze

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
          line("#{time.utc.iso8601(3)} ", severity, message)
        end

        private

        def line(stamp, severity, message)
          if Deckhand::DropIn.version.level_first_log_lines?
            "\e[1;#{COLOURS.fetch(severity, 0)}m#{severity.ljust(5)}\e[0m #{stamp}pid=#{::Process.pid} tid=#{tid}#{format_context}: #{message}\n"
          else
            "#{stamp}pid=#{::Process.pid} tid=#{tid}#{format_context} #{severity}: #{message}\n"
          end
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
        def call(severity, _time, _program, message) = line("", severity, message)
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
