# frozen_string_literal: true

require "time"
require_relative "doubles"

module Torture
  # The books of one run of scenario 17 (clock skew), kept apart from the
  # servers' clocks: job starts are stamped by the ledger's clock
  # (Record.stamped), kills by the driver's, both the host's. Reads the
  # ledger, the fleet's kills and the servers' logs.
  #
  #   books = ClockBooks.new(ledger, fleet)
  #   books.doubled                 # => [jobs run twice with no kill to explain it, jobs rerun after a kill]
  #   books.false_recoveries        # => recoveries logged of processes never killed
  #   books.timing(jid => at)       # => [started early, started late]
  #   books.reruns(skewed_kills)    # => [jobs the killed were running, seconds until each ran again]
  class ClockBooks
    EARLY = 1.0 # seconds before its time a scheduled job may not start
    RECOVERY = /^(\S+) .*process (\S+) .*recovered \d+ of its jobs/

    def initialize(ledger, fleet)
      @ledger = ledger
      @fleet = fleet
      @starts = ledger.starts
      @killed = fleet.kills.to_h
    end

    # Jobs run twice with no kill to explain it, and jobs rerun after a kill
    # (Doubles).
    def doubled
      doubles = Doubles.new(@starts, @killed)
      [doubles.unexplained, doubles.explained]
    end

    # A few of the doubled jobs, for the failure's message (Doubles#examples).
    def doubled_examples = Doubles.new(@starts, @killed).examples

    # Recoveries logged (by any server) of a process not killed by then: a
    # reaper took a live process for dead. Each line is timed by the clock
    # of the server that logged it, less that server's measured skew
    # (#log_offset).
    def false_recoveries
      killed_at = @fleet.members.filter_map { |m| [m.identity, @killed[m.pid]] if @killed.key?(m.pid) }.to_h
      @fleet.members.sum do |member|
        offset = log_offset(member) || 0.0
        File.read(member.log).scan(RECOVERY).count do |stamp, identity|
          at = Time.iso8601(stamp).to_f - offset
          killed_at[identity].nil? || at < killed_at[identity]
        end
      end
    end

    # Of the scheduled jobs (jid => the time they were due), how many first
    # started more than EARLY seconds before it, and more than `late` after.
    def timing(due, late:)
      first = @starts.group_by(&:jid).transform_values { |starts| starts.map(&:at).min }
      early = due.count { |jid, at| first[jid] && first[jid] < at - EARLY }
      [early, due.count { |jid, at| first[jid].nil? || first[jid] > at + late }]
    end

    # For `kills` ([pid, at] pairs): the jobs each killed server was running
    # alone (started there, not started elsewhere since, finished nowhere by
    # the kill), and the seconds until each started on another server (nil:
    # never). A job a reaper had already taken from it is counted doubled.
    def reruns(kills)
      finishes = @ledger.finishes.group_by(&:jid)
      by_jid = @starts.group_by(&:jid)
      orphans = kills.flat_map do |pid, at|
        @starts.select { |s| s.pid == pid }.filter_map do |start|
          elsewhere = by_jid[start.jid].any? { |s| s.pid != pid && s.at > start.at && s.at <= at }
          done = finishes.fetch(start.jid, []).any? { |f| f.pid == pid || f.at <= at }
          [start.jid, pid, at] unless elsewhere || done
        end.uniq
      end
      delays = orphans.map do |jid, pid, at|
        rerun = by_jid[jid].select { |s| s.at > at && s.pid != pid }.min_by(&:at)
        rerun && rerun.at - at
      end
      [orphans.size, delays]
    end

    # How far ahead of the host's clock `pids` read theirs, the median of
    # their jobs' stamps (nil when they ran none).
    def clock_offset(pids)
      offsets = @ledger.clock_offsets.filter_map { |pid, offset| offset if pids.include?(pid) }.sort
      offsets.empty? ? nil : offsets[offsets.size / 2]
    end

    # How far ahead of the driver's clock `member` logged its boot line.
    def log_offset(member)
      stamp = File.read(member.log)[/^(\S+) .*started as /, 1]
      stamp && member.booted_at && (Time.iso8601(stamp).to_f - member.booted_at)
    rescue ArgumentError
      nil
    end
  end
end
