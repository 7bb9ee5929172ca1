# frozen_string_literal: true

module Deckhand
  module Logging
    module Formatters
      # A short id for the current thread, stable for its life.
      def self.tid
        Thread.current[:deckhand_tid] ||= (Thread.current.object_id ^ ::Process.pid).to_s(36)
      end

      # The running job's class and jid, then any context set with Logger.with_context.
      # The job runner sets only a thread-local per job, so logging costs nothing
      # per job unless a line is written.
      def self.context
        job = Thread.current[:deckhand_job]
        extra = Thread.current[:deckhand_log_context]
        context = job ? {"class" => job["class"], "jid" => job["jid"]} : {}
        extra ? context.merge(extra.to_h) : context
      end

      # 2026-11-22T10:00:00.123Z pid=4242 tid=2ft class=WelcomeJob jid=ab12… INFO: done 1.2ms
      class PlainText < ::Logger::Formatter # :nodoc:
        def call(severity, time, _program, message)
          line = "#{time.utc.strftime("%FT%T.%LZ")} pid=#{::Process.pid} tid=#{Formatters.tid}"
          Formatters.context.each { |key, value| line << " #{key}=#{value}" }
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
      class JSON < PlainText
        def call(severity, time, _program, message)
          entry = {"ts" => time.utc.strftime("%FT%T.%LZ"), "pid" => ::Process.pid, "tid" => Formatters.tid, "lvl" => severity}
          context = Formatters.context
          entry["ctx"] = context unless context.empty?
          entry["msg"] = message_text(message)
          ::JSON.generate(entry) << "\n"
        end
      end
    end
  end
end
