# frozen_string_literal: true

require "json"

module Deckhand
  class API
    # One server process, as its last heartbeat described it (a Deckhand or a
    # Sidekiq process: both write the same record).
    #
    #   process = api.processes.first
    #   process.busy          # => 7 of process.concurrency threads running jobs
    #   process.rss_kb        # => 183_204
    #   process.quiet!        # finish running jobs, take no more (TSTP)
    #   process.stop!         # shut down (TERM)
    class ProcessInfo
      SIGNAL_TTL = 60

      attr_reader :identity, :busy, :beat, :rss_kb, :rtt_us, :inflight

      def initialize(identity, fields, inflight, store:)
        info, busy, beat, quiet, rss, rtt = fields
        @identity = identity
        @info = parse(info)
        @busy = busy.to_i
        @beat = beat && Time.at(beat.to_f)
        @quiet = quiet == "true"
        @rss_kb = rss.to_i
        @rtt_us = rtt.to_i
        @inflight = inflight.to_i
        @store = store
      end

      def hostname = @info["hostname"].to_s

      def pid = @info["pid"]

      def tag = @info["tag"].to_s

      def version = @info["version"].to_s

      def concurrency = @info["concurrency"].to_i

      def queues = Array(@info["queues"]).map(&:to_s)

      def labels = Array(@info["labels"]).map(&:to_s)

      def started_at = @info["started_at"] && Time.at(@info["started_at"].to_f)

      def quiet? = @quiet

      # No heartbeat for a while: the process is likely gone, its record about to expire.
      def stale?(now = Time.now) = @beat.nil? || now - @beat > 60

      def quiet! = signal("TSTP")

      def stop! = signal("TERM")

      def [](field) = @info[field]

      private

      def parse(info)
        parsed = info && JSON.parse(info)
        parsed.is_a?(Hash) ? parsed : {}
      rescue JSON::ParserError
        {}
      end

      # The process picks the signal up on its next heartbeat.
      def signal(name)
        key = Store::Keys.signals(@identity)
        @store.pipelined do |pipe|
          pipe.call("LPUSH", key, name)
          pipe.call("EXPIRE", key, SIGNAL_TTL)
        end
        nil
      end
    end
  end
end
