# frozen_string_literal: true

require "time"

module Deckhand
  module Server
    module Run
      # What the job options ask of the server around a job's run
      # (docs/job-options.md):
      #
      # - expires_in: a job whose "expires_at" passed before it started is
      #   dropped unrun, acknowledged like a success (its unique lock released),
      #   logged once, counted in stat:expired, and the expired handlers told
      #   (Config#on_expired: a batch counts it as a success).
      # - encrypt: the secret bag is decrypted for perform, and cleared from
      #   the message of the job's error.
      # - unique_until: :start releases the unique lock just before perform;
      #   :success (the default) releases it with the success's acknowledgement.
      #
      #   gate = JobGate.new(config: config, store: store, fetcher: fetcher, stats: stats)
      #   gate.expired(unit, job)   # => true when it dropped the job
      #   gate.starting(job)        # just before perform
      #   gate.unlock(job, queue)   # => [key, jid, ttl ms] to release with the success, or nil
      #   gate.unlock_unit(unit, job) # the same for a fetched job, by the queue it came from
      class JobGate
        def initialize(config:, store:, fetcher:, stats:)
          @config = config
          @store = store
          @fetcher = fetcher
          @stats = stats
        end

        # Drops the job when its time to start is over; true when it did.
        def expired(unit, job)
          deadline = job["expires_at"]
          return false unless deadline.is_a?(Numeric) && deadline < @store.clock.now
          tell_expired(job)
          @fetcher.done(unit, unlock: unlock(job, unit.queue, until_start: false))
          @stats.expired
          @config.logger.info("#{job["wrapped"] || job["class"]} jid=#{job["jid"]} expired: not started before #{Time.at(deadline).utc.iso8601(3)} (expires_in), dropped unrun")
          true
        end

        def starting(job)
          return unless Unique.until_start?(job)
          key, jid = Unique.held_by(job, @store.layout)
          Store::Features::UniqueLocks.release(@store, key, jid) if key
        end

        # The lock goes with the acknowledgement, a script of the queue the job
        # came from (`queue`); see Store::Features::UniqueLocks.within. A job without a
        # lock (most jobs) is answered after one look at its unique_for.
        # The unlock of a fetched job's success: its queue is looked up only
        # for a job that holds a lock (a chunk asks for each member).
        def unlock_unit(unit, job) = Unique.ttl_seconds(job) && unlock(job, unit.queue)

        def unlock(job, queue = job["queue"], until_start: nil)
          lock = Unique.held_by(job, @store.layout) or return nil
          until_start = Unique.until_start?(job) if until_start.nil?
          until_start ? nil : Store::Features::UniqueLocks.within(@store, lock, queue)
        end

        # The args perform gets: the secret bag decrypted (encrypt: true); the
        # job itself keeps its envelope for retries and the dead set.
        def args(job) = Encryption.args(job, @config.encryption_keys)

        # The error of an encrypted job, its message cleared of the bag's
        # values, so no secret reaches a log line, the retry or the dead set.
        # A message that cannot be cleared (it raises, or its encoding does
        # not match the secrets') is withheld.
        def redact(job, error)
          return error unless Encryption.envelope?(job["args"].last)
          message = error.message.to_s
          secrets(args(job).last).sort_by { |s| -s.size }.each { |secret| message = message.gsub(secret, Encryption::MASK) }
          (message == error.message.to_s) ? error : Error.reworded(error, message)
        rescue DecryptionError
          error
        rescue Deckhand::AppError => e
          Error.reworded(error, "(message withheld: it could not be cleared of the job's secrets, #{e.class})")
        end

        private

        # The bag's values as they could appear in a message (short ones would
        # mask innocent text).
        def secrets(value)
          case value
          when Hash then value.values.flat_map { |v| secrets(v) }
          when Array then value.flat_map { |v| secrets(v) }
          else (value.to_s.size >= 4) ? [value.to_s] : []
          end
        end

        # Before its acknowledgement, so a handler that records the job (a
        # batch counting it a success) does so while it is still in flight.
        def tell_expired(job)
          @config.expired_handlers.each do |handler|
            handler.call(job)
          rescue Deckhand::AppError => e # a handler's bug must not unsettle a job
            @config.logger.error("expired handler raised #{e.class}: #{e.message}")
          end
        end
      end
    end
  end
end
