# frozen_string_literal: true

module Deckhand
  module Logging
    module Formatters
      # A short id for the current thread, stable for its life.
      def self.tid
        Thread.current[:deckhand_tid] ||= (Thread.current.object_id ^ ::Process.pid).to_s(36)
      end

      # 2026-11-22T10:00:00.123Z pid=4242 tid=2ft class=WelcomeJob jid=ab12… INFO: done 1.2ms
      class Plain < ::Logger::Formatter
        def call(severity, time, _program, message)
          context = Thread.current[:deckhand_log_context]
          line = "#{time.utc.strftime("%FT%T.%LZ")} pid=#{::Process.pid} tid=#{Formatters.tid}"
          context&.each { |key, value| line << " #{key}=#{value}" }
          line << " #{severity}: #{message_text(message)}\n"
        end

        private

        def message_text(message)
          case message
          when ::String then message
          when ::Exception then "#{message.class}: #{message.message}"
          else message.inspect
          end
        end
      end

      # One JSON object per line, for log shippers.
      class JSON < Plain
        def call(severity, time, _program, message)
          entry = {"ts" => time.utc.strftime("%FT%T.%LZ"), "pid" => ::Process.pid, "tid" => Formatters.tid, "lvl" => severity}
          context = Thread.current[:deckhand_log_context]
          entry["ctx"] = pairs(context) if context
          entry["msg"] = message_text(message)
          ::JSON.generate(entry) << "\n"
        end

        private

        # The context is anything whose #each yields key, value (a Hash, or the
        # job runner's lazy context): JSON.generate would write the latter as
        # its #to_s.
        def pairs(context)
          hash = {}
          context.each { |key, value| hash[key] = value }
          hash
        end
      end
    end
  end
end
