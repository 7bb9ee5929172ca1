# frozen_string_literal: true

module Deckhand
  class API
    # One server process, as its last heartbeat described it (a Deckhand or a
    # Sidekiq process: both write the same record, Store::Records::ProcessRecord).
    #
    #   process = api.processes.first
    #   process.busy          # => 7 of process.concurrency threads running jobs
    #   process.rss_kb        # => 183_204
    #   process.quiet!        # finish running jobs, take no more (TSTP)
    #   process.stop!         # shut down (TERM)
    class ProcessInfo
      attr_reader :identity, :busy, :beat, :rss_kb, :rtt_us, :inflight

      # Seconds Redis' clock was ahead of the process's host at its last
      # heartbeat (negative: behind), or nil from a process that does not
      # say (Sidekiq, an older Deckhand). Deckhand times what it writes by
      # Redis' clock whatever this says; past CLOCK_WARNING the host's clock
      # wants fixing (NTP) all the same.
      attr_reader :clock_offset

      # Seconds of #clock_offset past which the dashboard warns.
      CLOCK_WARNING = 1.0

      # What auto-balance decided last (docs/auto-balance.md): "caps" (queue
      # => running jobs at most), "cpu_bound" classes, "ratios" (class => CPU
      # over wall time), "backlog", "running", "cores", "busy"; {} without it.
      attr_reader :balance

      # entry: a Store::Records::ProcessRecord::Entry.
      def initialize(entry, store:)
        @identity = entry.identity
        @info = entry.info
        @busy = entry.busy
        @beat = entry.beat
        @quiet = entry.quiet
        @rss_kb = entry.rss_kb
        @rtt_us = entry.rtt_us
        @inflight = entry.inflight
        @balance = entry.balance || {}
        @clock_offset = entry.clock_offset
        @store = store
      end

      # The host the process runs on.
      def hostname = @info["hostname"].to_s

      # The process's pid on its host.
      def pid = @info["pid"]

      # The process's tag (Config#tag), or "".
      def tag = @info["tag"].to_s

      # The Deckhand (or Sidekiq) version the process runs.
      def version = @info["version"].to_s

      # The process's threads over all its capsules.
      def concurrency = @info["concurrency"].to_i

      # The queues the process works.
      def queues = Array(@info["queues"]).map(&:to_s)

      # The process's labels (Config#labels).
      def labels = Array(@info["labels"]).map(&:to_s)

      # The queue throttles its configuration sets, as it published them:
      # queue => {"rate" =>, "per" =>, "concurrency" =>} ({} from a process
      # that does not publish them, like Sidekiq or an older Deckhand).
      def throttles
        published = @info["throttles"]
        return {} unless published.is_a?(Hash)
        published.select { |queue, limit| queue.is_a?(String) && limit.is_a?(Hash) && !limit.empty? }
      end

      # Its partitioned queues, as it published them: queue => number of
      # lists ({} from a process that does not publish them).
      def partitions
        published = @info["partitions"]
        return {} unless published.is_a?(Hash)
        published.select { |queue, count| queue.is_a?(String) && count.is_a?(Integer) && count.between?(2, Config::Partitions::MAX) }
      end

      # Its capsules: name => {"concurrency" =>, "mode" => "strict" or
      # "weighted", "queues" => [...], "weights" => {queue => weight}}.
      def capsules
        published = @info["capsules"]
        published.is_a?(Hash) ? published.select { |_, capsule| capsule.is_a?(Hash) } : {}
      end

      # When the process started (a Time, or nil).
      def started_at = @info["started_at"] && Time.at(@info["started_at"].to_f)

      # Whether the process is quiet: finishing its jobs, taking no more.
      def quiet? = @quiet

      # True when the process's host clock is off Redis' by more than CLOCK_WARNING.
      def clock_skewed? = !@clock_offset.nil? && @clock_offset.abs > CLOCK_WARNING

      # No heartbeat for a while: the process is likely gone, its record about to expire.
      def stale?(now = Time.at(@store.clock.now)) = @beat.nil? || now - @beat > 60

      # Asks the process to quiet: finish its running jobs and take no more (as TSTP would).
      def quiet! = Store::Records::ProcessRecord.signal(@store, @identity, "TSTP")

      # Asks the process to stop (as TERM would).
      def stop! = Store::Records::ProcessRecord.signal(@store, @identity, "TERM")

      # A field of the process's record as written.
      def [](field) = @info[field]

      # Every field of the info its heartbeat wrote.
      def to_h = @info.dup
    end
  end
end
