# frozen_string_literal: true

module Deckhand
  class Client
    # Pushes unique jobs: each with its lock, in one round trip
    # (Store::UniqueLocks.push). A job whose lock another job holds is not
    # pushed: its place in the answer is nil and the holder's jid is logged,
    # or with on_conflict: :raise, Deckhand::NotUnique names it.
    #
    #   UniquePush.new(config).call([job], [nil], [lock])   # => ["b4a5..."] or [nil]
    class UniquePush
      def initialize(config)
        @config = config
      end

      # jobs: normalized job Hashes of one queue; ats: their scheduled times
      # (nil: now); locks: their Unique::Lock. Returns jid or nil per job.
      def call(jobs, ats, locks)
        now = Payload.now(@config.timestamps)
        entries = jobs.each_with_index.map do |job, i|
          job["enqueued_at"] = now unless ats[i]
          [locks[i], ats[i], Payload.encode(job, max_bytes: @config.max_payload_bytes)]
        end
        holders = Store::UniqueLocks.push(@config.store, jobs.first["queue"], entries)
        conflicts = []
        jids = jobs.each_with_index.map do |job, i|
          next job["jid"] unless holders[i]
          conflicts << [job, holders[i]]
          nil
        end
        conflicts.each { |job, holder| conflict(job, holder) }
        jids
      end

      private

      def conflict(job, holder)
        message = "#{job["wrapped"] || job["class"]} not pushed: job #{holder} holds its unique lock " \
          "#{job["unique_key"]} (same class, queue and arguments)"
        raise NotUnique.new(message, holder: holder, key: job["unique_key"]) if job["on_conflict"] == "raise"
        @config.logger.info(message)
      end
    end
  end
end
