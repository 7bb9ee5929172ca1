# frozen_string_literal: true

require "redis_client"
require_relative "driver_redis"

module Torture
  # The books of a torture run, kept in a Redis of their own (the system under
  # test may be SIGKILLed, restarted or cut off; the ledger never is). The
  # driver records every jid it enqueued once the push returned; every job
  # records its start and finish (torture/app.rb).
  #
  #   ledger = Ledger.new(url)
  #   ledger.enqueued(jids)
  #   ledger.missing.size        # enqueued, never finished
  #   ledger.analysis(kills: [[pid, at], ...])
  class Ledger
    Event = Struct.new(:jid, :pid, :at)

    attr_reader :url

    def initialize(url)
      @url = url
      @redis = Torture.redis(url)
    end

    def reset = @redis.call("FLUSHDB")

    def enqueued(jids)
      jids.each_slice(5_000) { |slice| @redis.call("SADD", "ledger:enqueued", *slice) }
    end

    def enqueued_count = @redis.call("SCARD", "ledger:enqueued")

    def done_count = @redis.call("SCARD", "ledger:done")

    # Enqueued, and neither finished nor quarantined.
    def missing = @redis.call("SDIFF", "ledger:enqueued", "ledger:done", "ledger:quarantined")

    # Jobs the fleet quarantined as poison pills: in the dead set with their
    # bytes, so accounted for, not lost. A churn that SIGKILLs a server every
    # few seconds now and then catches the same job running three times, as
    # a real poison pill is caught: the scenarios report how many.
    def quarantined(jids)
      @redis.call("SADD", "ledger:quarantined", *jids) unless jids.empty?
    end

    def quarantined_count = @redis.call("SCARD", "ledger:quarantined")

    def quarantined_jids = @redis.call("SMEMBERS", "ledger:quarantined")

    # Members of each chunk run (Torture::ChunkWorkJob), in the order they ran.
    def chunk_sizes = @redis.call("LRANGE", "ledger:chunks", 0, -1).map(&:to_i)

    def starts = events("ledger:starts")

    def finishes = events("ledger:finishes")

    def probes = @redis.call("LRANGE", "ledger:probe", 0, -1)

    # Jobs `pid` is running now (of those stamped by the ledger's clock).
    def running(pid) = @redis.call("HGET", "ledger:running", pid).to_i

    # Of each start stamped by the ledger's clock (Record.stamped): the pid,
    # and how far ahead of the ledger's clock the process's own clock read.
    def clock_offsets
      @redis.call("LRANGE", "ledger:starts", 0, -1).filter_map do |line|
        _, pid, at, own = line.split(" ")
        [pid.to_i, own.to_f - at.to_f] if own
      end
    end

    # jid => when the job entered its queue, as its runs stamped it
    # (Record.stamped_start's `queued`): the earliest, for a job run twice.
    def queued_at
      @redis.call("LRANGE", "ledger:starts", 0, -1).each_with_object({}) do |line, found|
        jid, _, _, _, queued = line.split(" ")
        found[jid] = [found[jid], queued.to_f].compact.min if queued
      end
    end

    # Everything a scenario reports about executions. `kills` are [pid, epoch
    # seconds] pairs: for each, the jobs that pid had started and not finished,
    # and how long until they started again elsewhere.
    def analysis(kills: [])
      starts = self.starts
      finishes = self.finishes
      {
        lost: missing.size,
        runs: starts.size,
        duplicate_starts: starts.size - starts.map(&:jid).uniq.size,
        duplicate_finishes: finishes.size - finishes.map(&:jid).uniq.size,
        rerun_delays: rerun_delays(kills, starts, finishes)
      }
    end

    def close = @redis.close

    private

    def events(key)
      @redis.call("LRANGE", key, 0, -1).map do |line|
        jid, pid, at = line.split(" ")
        Event.new(jid, pid.to_i, at.to_f)
      end
    end

    def rerun_delays(kills, starts, finishes)
      by_jid = starts.group_by(&:jid)
      finished = finishes.map { |f| [f.jid, f.pid] }.to_h { |pair| [pair, true] }
      kills.flat_map do |pid, at|
        orphans = starts.select { |s| s.pid == pid && s.at <= at && !finished[[s.jid, pid]] }.map(&:jid).uniq
        orphans.filter_map do |jid|
          rerun = by_jid[jid].select { |s| s.at > at && s.pid != pid }.min_by(&:at)
          rerun && (rerun.at - at)
        end
      end
    end
  end
end
