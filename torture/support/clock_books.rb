# frozen_string_literal: true

require "time"

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

    # A job may start again only after the server of its previous start was
    # SIGKILLed (its run, or its acknowledgement, died with it); any other
    # second start counts as doubled. A killed server's starts all came
    # before its kill, though the ledger may stamp the last of them a few
    # milliseconds after the driver noted the kill.
    def doubled
      again = @starts.group_by(&:jid).values.select { |starts| starts.size > 1 }
      legit = again.count { |starts| explained?(starts) }
      [again.size - legit, legit]
    end

    # A few of the doubled jobs, each as its starts (pid@seconds since the
    # first start, and when its pid was killed), for the failure's message.
    def doubled_examples(count = 3)
      @starts.group_by(&:jid).values.select { |starts| starts.size > 1 && !explained?(starts) }.first(count).map do |starts|
        first = starts.map(&:at).min
        shown = starts.sort_by(&:at).map do |s|
          kill = @killed[s.pid]
          "#{s.pid}@#{format("%.2f", s.at - first)}#{" (killed @#{format("%.2f", kill - first)})" if kill}"
        end
        "#{starts.first.jid}: #{shown.join(" ")}"
      end
    end

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

    private

    def explained?(starts)
      starts.sort_by(&:at).each_cons(2).all? do |before, after|
        killed = @killed[before.pid]
        killed && killed <= after.at
      end
    end
  end
end
