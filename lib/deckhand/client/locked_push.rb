# frozen_string_literal: true

require_relative "scripted_push"

module Deckhand
  class Client
    # Pushes unique jobs: each with its lock, in one round trip
    # (Store::Features::UniqueLocks.push). A job whose lock another job holds is not
    # pushed: its place in the answer is nil and the holder's jid is logged,
    # or with on_conflict: :raise, Deckhand::NotUnique names it.
    #
    #   LockedPush.new(config).call([job], [nil], [lock])   # => ["b4a5..."] or [nil]
    class LockedPush < ScriptedPush # :nodoc:
      # How Client.write behind a pusher tells a unique job's payload.
      MARK = "\"unique_key\""

      # A push waiting to learn of its conflicts (Client#push, when the pusher
      # writes at once) finds them here: jid => holder.
      CONFLICTS = :deckhand_unique_conflicts

      # Runs the block (a push through a pusher) and returns the conflicts
      # met by unique jobs written meanwhile: jid => holder. A pusher that
      # defers the write (inside a transaction) reports none.
      def self.watch
        previous = Thread.current[CONFLICTS]
        Thread.current[CONFLICTS] = conflicts = {}
        yield
        conflicts
      ensure
        Thread.current[CONFLICTS] = previous
      end

      # jobs: normalized job Hashes of one queue; ats: their scheduled times
      # (nil: now); locks: their Unique::Lock. Returns jid or nil per job.
      def call(jobs, ats, locks)
        entries = locks.zip(ats, payloads(jobs) { |i| !ats[i] })
        holders = run_script(jobs) { Store::Features::UniqueLocks.push(@config.store, jobs.first["queue"], entries, fair: @config.fair_queues) }
        conflicts = []
        jids = jobs.each_with_index.map do |job, i|
          next job["jid"] unless holders[i]
          conflicts << [job, holders[i]]
          nil
        end
        conflicts.each { |job, holder| conflict(job, holder) }
        jids
      end

      # Logs a job that was not pushed, or raises NotUnique (on_conflict: :raise).
      def conflict(job, holder)
        message = message(job, holder)
        raise NotUnique.new(message, holder: holder, key: job["unique_key"]) if job["on_conflict"] == "raise"
        @config.logger.info(message)
      end

      private

      # A unique job's payload (ScriptedPush#deferred: a duplicate is logged, not pushed).
      def marked?(json) = json.include?(MARK)

      # No holder: the job took its lock and was pushed.
      def pushed?(holder) = !holder

      def write_one(json, at)
        job = Payload.decode(json)
        lock = Unique.lock_for(job, at: at, layout: @config.layout) or return false
        holder = Store::Features::UniqueLocks.push(@config.store, job["queue"], [[lock, at, json]], fair: @config.fair_queues).first
        return true unless holder
        watching = Thread.current[CONFLICTS]
        watching ? watching[job["jid"]] = holder : @config.logger.info(message(job, holder))
        true
      end

      def message(job, holder)
        "#{job["wrapped"] || job["class"]} not pushed: job #{holder} holds its unique lock " \
          "#{job["unique_key"]} (same class, queue and arguments)"
      end
    end
  end
end
