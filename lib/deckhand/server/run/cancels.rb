# frozen_string_literal: true

module Deckhand
  module Server
    module Run
      # The jobs this process runs that someone may cancel (Client.cancel,
      # docs/cancelling.md), and what became of each cancel. The heartbeat
      # reads the cancel marks of #jids with each beat and calls #seen for
      # the marked; the job's instance then answers cancelled? true. A job
      # still running `grace` seconds later is interrupted (#overdue, from
      # the heartbeat too) with Deckhand::Cancelled.
      #
      # One lock settles the race between a cancel and the job's own end:
      # #leave, called once perform returned, says whether the cancel came
      # first, and after it no interrupt is sent, so the job has exactly one
      # outcome: cancelled, or its own.
      #
      #   entry = cancels.enter(jid, Thread.current, interruptible: true)
      #   entry.instance = job                        # once built
      #   cancels.seen({jid => 10}, now: Monotonic.now, grace: 10)  # heartbeat: job.cancelled? is true now
      #   cancels.overdue(now: Monotonic.now + 11)    # => [jid]: interrupted
      #   cancels.leave(entry)                        # => :raised (or :cancelled, or nil: not cancelled)
      class Cancels
        # state: nil (running), :cancelled (told), :raised (interrupted).
        Entry = Struct.new(:jid, :thread, :interruptible, :instance, :state, :deadline)
        private_constant :Entry

        # The entries are kept by identity, not by jid: a job's jid is a new
        # String every job, which a Hash would hash and copy (frozen) as a
        # key on the way in and hash again on the way out, while the
        # heartbeat, the only reader by jid, looks a few times a minute
        # (docs/performance.md, "Sidekiq's load test on Ruby 3.3").
        def initialize
          @lock = Mutex.new
          @entries = {}.compare_by_identity
        end

        # interruptible: false for a job a fiber capsule runs (no thread of its own).
        def enter(jid, thread, interruptible:)
          entry = Entry.new(jid, thread, interruptible)
          @lock.synchronize { @entries[entry] = true }
          entry
        end

        # A chunk's members (Run::ChunkRunner), entered at once under one
        # lock; never interrupted. Returns their entries, in order. Each
        # holds its member's own jid, as #enter does: no copy a member.
        def enter_all(jids, thread)
          entries = jids.map { |jid| Entry.new(jid, thread, false) }
          @lock.synchronize { entries.each { |entry| @entries[entry] = true } }
          entries
        end

        # The entries' jids to their entries, for a chunk whose perform_chunk
        # asks (few do): only then is each jid copied, frozen, as a key.
        def by_jid(entries) = entries.to_h { |entry| [entry.jid, entry] }

        # Hands the job its instance once built, telling it of a cancel seen already.
        def attach(entry, instance)
          @lock.synchronize do
            entry.instance = instance
            tell(entry)
          end
        end

        # The jids running now (a payload without one has no mark to read).
        def jids = @lock.synchronize { @entries.each_key.map(&:jid).grep(String).uniq }

        # marks: {jid => grace or nil} read from Redis; grace: the server's
        # cancel_grace, for a cancel that named none. Returns the jids told now.
        def seen(marks, now:, grace:)
          @lock.synchronize do
            @entries.each_key.filter_map do |entry|
              next unless entry.state.nil? && marks.key?(entry.jid)
              entry.state = :cancelled
              entry.deadline = now + (marks[entry.jid] || grace)
              tell(entry)
              entry.jid
            end.uniq
          end
        end

        # Interrupts the cancelled jobs past their grace period; returns their jids.
        def overdue(now:)
          @lock.synchronize do
            @entries.each_key.filter_map do |entry|
              next unless entry.state == :cancelled && entry.deadline <= now && entry.interruptible
              entry.state = :raised
              entry.thread.raise(Deckhand::Cancelled, "job #{entry.jid} was cancelled and did not stop within its grace period")
              entry.jid
            end
          end
        end

        # Whether the job's cancel has been seen (it is still running).
        def told?(entry) = !entry.state.nil?

        # The job's perform returned: whether it was cancelled first
        # (:cancelled, or :raised when an interrupt was sent), nil if not.
        def leave(entry) = @lock.synchronize { leave_one(entry) }

        # #leave for each of a chunk's members under one lock: their states, in order.
        def leave_all(entries) = @lock.synchronize { entries.map { |entry| leave_one(entry) } }

        private

        def leave_one(entry)
          @entries.delete(entry)
          state = entry.state
          entry.state = :left
          state
        end

        def tell(entry)
          instance = entry.instance
          instance.deckhand_cancel_seen!(entry.deadline) if entry.state && instance.respond_to?(:deckhand_cancel_seen!)
        end
      end
    end
  end
end
