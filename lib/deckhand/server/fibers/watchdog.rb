# frozen_string_literal: true

require_relative "../../component"

module Deckhand
  module Server
    module Fibers
      # Notices a job that blocks its fiber capsule's reactor: one that
      # computes, or waits in a C call the fiber scheduler cannot see (a
      # driver without fiber support, a blocking FFI call). Every other fiber
      # of the capsule waits meanwhile. Ruby 3.1's scheduler has no hook for
      # such calls, so this thread watches the reactor's pulse (Pool#lag):
      # while it is late, it reads which job runs on the reactor's thread (the
      # fiber-locals of a thread are those of the fiber it runs), and when one
      # job has held it for `threshold` seconds, reports it with the line it
      # is at, once per stall. A reactor late because many fibers each ran a
      # little, one after the other, names no one.
      #
      #   Watchdog.new(pool, logger: logger, threshold: 0.2).start
      class Watchdog < Component
        def initialize(pool, logger:, threshold: 0.2)
          super("#{pool.name}-watchdog", logger: logger)
          @pool = pool
          @threshold = threshold
          @sleeper = Sleeper.new
          @reported = 0
        end

        # Stalls reported since start.
        attr_reader :reported

        private

        def run
          suspect = since = nil
          reported = false
          while @sleeper.sleep(@threshold / 4.0)
            lag = @pool.lag
            culprit = (lag >= 2 * Pool::TICK) ? blocking_job : nil
            if culprit.nil? || culprit[:jid] != suspect
              suspect = culprit && culprit[:jid]
              since = now
              reported = false
            elsif !reported && now - since >= @threshold
              reported = true
              report(culprit, lag)
            end
          end
        end

        def report(culprit, lag)
          @reported += 1
          @logger.warn("#{culprit[:class]} jid=#{culprit[:jid]} has blocked the reactor of fiber capsule " \
            "#{capsule} for #{lag.round(2)}s (at #{culprit[:at]}): no other job of the capsule runs meanwhile. " \
            "A job that computes or waits in a C call belongs in a thread capsule (docs/concurrency.md)")
        end

        # The job on the reactor's thread now, or nil when no job runs there
        # (the thread waits for the lock Ruby's threads share: not a job's fault).
        def blocking_job
          thread = @pool.thread
          job = thread&.[](:deckhand_job) or return nil
          frames = thread.backtrace || []
          at = frames.find { |line| !line.include?("/lib/deckhand/") && !line.include?("/gems/") } || frames.first
          {class: job["wrapped"] || job["class"], jid: job["jid"], at: at}
        end

        def capsule = @pool.name.delete_suffix("-fibers")

        def wake = @sleeper.stop
      end
    end
  end
end
