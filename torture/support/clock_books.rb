# frozen_string_literal: true

require "time"

module Torture
  # The books of one run of scenario 17 (clock skew), kept apart from the
  # servers' clocks: job starts are stamped by the ledger's clock
  # (Record.stamped), kills by the driver's, both the host's. Reads the
  # ledger, the fleet's kills and the servers' logs.
  #
  #   books = ClockBooks.new(ledger, fleet)
  #   books.doubled                 # => [run twice with no kill or failure to explain it, rerun after a kill, retried after a failure]
  #   books.false_recoveries        # => recoveries logged of processes never killed
  #   books.timing(jid => at, late: 5) # => [started early, [[jid, due at, seconds late, of which the scheduler's], ...]]
  #   books.reruns(skewed_kills)    # => [jobs the killed were running, seconds until each ran again]
  class ClockBooks
    EARLY = 1.0 # seconds before its time a scheduled job may not start
    RECOVERY = /^(\S+) .*process (\S+) .*recovered \d+ of its jobs/
    FAILED = /jid=(\h+) WARN: fail [\d.]+ms: (.*)$/
    BOOKS_FAILED = "Torture::BooksUnreachable"

    # crashed: the members that exited on their own.
    def initialize(ledger, fleet, crashed: [])
      @ledger = ledger
      @fleet = fleet
      @crashed = crashed.to_h { |m| [m.pid, m.status] }
      @starts = ledger.starts
      @killed = fleet.kills.to_h
    end

    # A job may start again only after the server of its previous start was
    # SIGKILLed (its run, or its acknowledgement, died with it), or after
    # that run raised (its server logged "fail" for it: a failed job is
    # retried, by design); any other second start counts as doubled. A
    # killed server's starts all came before its kill, though the ledger may
    # stamp the last of them a few milliseconds after the driver noted the
    # kill. Returns [doubled, rerun after a kill, retried after a failure].
    def doubled
      again = @starts.group_by(&:jid).values.select { |starts| starts.size > 1 }
      killed = again.count { |starts| explained?(starts, failures: false) }
      retried = again.count { |starts| explained?(starts) } - killed
      [again.size - killed - retried, killed, retried]
    end

    # The messages of the failures logged for jobs run again after them.
    def failure_messages = failures.values.flat_map(&:values).uniq

    # Whether a run of `jid` failed because its write to the books did
    # (Torture::BooksUnreachable): its start may be unrecorded, its retry
    # the first start the books saw.
    def books_failed?(jid) = failures.fetch(jid, {}).values.any? { |message| message.start_with?(BOOKS_FAILED) }

    # A few of the doubled jobs, each as its starts (pid@seconds since the
    # first start, and what became of that pid: killed when, exited on its
    # own, or up to the end), with what each pid logged about the job, for
    # the failure's message.
    def doubled_examples(count = 3)
      @starts.group_by(&:jid).values.reject { |starts| starts.size < 2 || explained?(starts) }.first(count).map do |starts|
        first = starts.map(&:at).min
        shown = starts.sort_by(&:at).map do |s|
          "#{s.pid}@#{format("%.2f", s.at - first)} (#{fate(s.pid, first)}#{said(s.pid, s.jid)})"
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

    # Of the scheduled jobs (jid => the time they were due): how many first
    # started more than EARLY seconds before it, and, for each that started
    # more than `late` after it (or never), [jid, its due time, seconds late
    # or nil, seconds after its due time it entered its queue (the
    # scheduler's part) or nil].
    def timing(due, late:)
      first = @starts.group_by(&:jid).transform_values { |starts| starts.map(&:at).min }
      queued = @ledger.queued_at
      early = due.count { |jid, at| first[jid] && first[jid] < at - EARLY }
      lates = due.filter_map do |jid, at|
        next if first[jid] && first[jid] <= at + late
        [jid, at, first[jid] && first[jid] - at, queued[jid] && queued[jid] - at]
      end
      [early, lates]
    end

    # For `kills` ([pid, at] pairs): the jobs each killed server was running
    # alone (started there, not started elsewhere since, finished nowhere by
    # the kill, not failed there: a failed job waits for its retry), and the
    # seconds until each started on another server (nil: never). A job a reaper had already taken from it is counted doubled.
    def reruns(kills)
      finishes = @ledger.finishes.group_by(&:jid)
      by_jid = @starts.group_by(&:jid)
      # A job quarantined as a poison pill (running at three kills) is in the
      # dead set, accounted for: it is never meant to run again.
      quarantined = @ledger.quarantined_jids.to_h { |jid| [jid, true] }
      orphans = kills.flat_map do |pid, at|
        @starts.select { |s| s.pid == pid }.filter_map do |start|
          elsewhere = by_jid[start.jid].any? { |s| s.pid != pid && s.at > start.at && s.at <= at }
          done = finishes.fetch(start.jid, []).any? { |f| f.pid == pid || f.at <= at } || failures.dig(start.jid, pid)
          [start.jid, pid, at] unless elsewhere || done || quarantined[start.jid]
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

    def explained?(starts, failures: true)
      starts.sort_by(&:at).each_cons(2).all? do |before, after|
        killed = @killed[before.pid]
        (killed && killed <= after.at) || (failures && self.failures.dig(before.jid, before.pid))
      end
    end

    # jid => {pid => the message of its "fail" line}, from every server's log.
    def failures
      @failures ||= @fleet.members.each_with_object({}) do |member, found|
        File.read(member.log).scan(FAILED) { |jid, message| (found[jid] ||= {})[member.pid] = message }
      end
    end

    # What became of `pid`, seconds after `first`.
    def fate(pid, first)
      member = @fleet.members.find { |m| m.pid == pid }
      return "not of this fleet" unless member
      return "killed @#{format("%.2f", @killed[pid] - first)}" if @killed.key?(pid)
      return "exited on its own: #{@crashed[pid]}" if @crashed.key?(pid)
      "never killed#{", recovered by a reaper" if reaped?(member)}"
    end

    # The lines `pid`'s server logged about `jid`, their stamps cut.
    def said(pid, jid)
      member = @fleet.members.find { |m| m.pid == pid }
      lines = member ? File.readlines(member.log).grep(/jid=#{jid}\b/) : []
      lines.empty? ? "; logged nothing of it" : "; logged #{lines.map { |l| l[/(INFO|WARN|ERROR): .*/].to_s[0, 120].inspect }.join(", ")}"
    end

    def reaped?(member)
      member.identity && @fleet.log_text.include?("process #{member.identity} ")
    end
  end
end
