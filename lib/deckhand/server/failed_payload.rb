# frozen_string_literal: true

require "json"

module Deckhand
  module Server
    # The JSON a failed job's outcome writes: the job with Sidekiq's failure
    # fields (retry_count, error_class, error_message, failed_at,
    # retried_at, error_backtrace), so Sidekiq's tools read them.
    #
    #   payloads = FailedPayload.new(config)
    #   payloads.record(job, "default", error, now)   # the fields, into the job Hash
    #   payloads.encode(job, raw) { |fetched| payloads.record(fetched, "default", error, now) }
    #   # => the JSON, or nil when the job cannot be written at all
    #
    # The job Hash is the one middleware and the job itself could change,
    # and nothing stops them from putting in it what JSON refuses: NaN,
    # bytes that are not UTF-8, an object whose to_json raises. Writing it
    # would then raise on the processor thread, after the job ran and
    # before its outcome was recorded. So when the Hash cannot be written,
    # the job is written as it was fetched (its raw bytes decoded again,
    # with the same changes: the block), as Sidekiq's retry writes the job
    # it fetched rather than the one middleware changed. Only when that
    # cannot be written either (encode returns nil) does the caller keep
    # the job in the dead set as fetched. Each text written (message,
    # backtrace) is made valid UTF-8 first, and a message is cut at
    # MAX_MESSAGE characters.
    class FailedPayload
      MAX_MESSAGE = 10_000

      def initialize(config)
        @config = config
        @logger = config.logger
      end

      # Writes the failure of `error` at `now` into `job`; `queue` is the
      # queue it goes back to (unless the job names a retry_queue).
      def record(job, queue, error, now)
        job["queue"] = job["retry_queue"] || queue
        job["error_message"] = message_of(error)
        job["error_class"] = error.class.name
        if job["retry_count"].is_a?(Integer)
          job["retried_at"] = now
          job["retry_count"] += 1
        else
          job["failed_at"] = now
          job["retry_count"] = 0
        end
        lines = backtrace_lines(job["backtrace"], error)
        job["error_backtrace"] = Payload::Backtrace.compress(lines.map { |line| utf8(line) }) if lines
        job.delete("enqueued_at") # the scheduler stamps a fresh one when the job is due again
      end

      # `job` as JSON; when it cannot be written, the job `raw` held, changed
      # by the block, as JSON; nil when neither can be (or `raw` is nil).
      def encode(job, raw)
        JSON.generate(job)
      rescue Deckhand::AppError => e # whatever writing an object of the application's raises
        fetched = raw && refetch(raw) { |copy| yield copy } or return nil
        @logger.warn("the failed job could not be written as middleware or the job left it (#{e.class}: " \
          "#{utf8(e.message)[0, 200]}); written as it was fetched, with its failure")
        fetched
      end

      # As UTF-8 (bytes that are not are replaced), at most MAX_MESSAGE
      # characters, and never the reason a failure goes unrecorded: a
      # message that raises is replaced by a note.
      def message_of(error)
        text = error.message.to_s
        utf8((text.bytesize > MAX_MESSAGE * 4) ? text.byteslice(0, MAX_MESSAGE * 4) : text)[0, MAX_MESSAGE]
      rescue => e
        "(the error's message could not be read: #{e.class})"
      end

      def utf8(value) = FailedPayload.utf8(value)

      # Text JSON can write, from any String: bytes that are not UTF-8
      # replaced, another encoding (UTF-16, Latin-1) converted.
      def self.utf8(value)
        text = value.to_s
        encoding = text.encoding
        return text if encoding == Encoding::UTF_8 && text.valid_encoding?
        if encoding == Encoding::UTF_8 || encoding == Encoding::BINARY
          text.dup.force_encoding(Encoding::UTF_8).scrub
        else
          text.encode(Encoding::UTF_8, invalid: :replace, undef: :replace)
        end
      end

      private

      def refetch(raw)
        copy = Payload.decode(raw)
        yield copy
        JSON.generate(copy)
      rescue Payload::Decoder::Invalid, Deckhand::AppError
        nil
      end

      def backtrace_lines(option, error)
        trace = error.backtrace or return nil
        cleaner = @config.backtrace_cleaner
        trace = (cleaner && clean(cleaner, trace)) || trace
        limit = case option
        when true then trace.size
        when Integer then option
        when false then 0
        else @config.backtrace_lines
        end
        limit.positive? ? trace.first(limit) : nil
      end

      # A cleaner's error, whatever its class, is logged: the backtrace is kept as it was.
      def clean(cleaner, trace)
        cleaner.call(trace)
      rescue Deckhand::AppError => e
        @logger.error("backtrace_cleaner (the backtrace is kept as it was) raised #{e.class}: #{e.message}")
        nil
      end
    end
  end
end
