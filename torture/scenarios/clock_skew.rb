# frozen_string_literal: true

require_relative "../support/faketime"
require_relative "../support/clock_books"
require_relative "../support/job_census"
require_relative "../support/beat_watch"
require_relative "../support/push_stream"
require_relative "../support/driver_redis"

module Torture
  # 17. One of three servers runs with its wall clock skewed (libfaketime:
  # Torture::Faketime), 400 s ahead, then in a second run 400 s behind, while
  # a stream of jobs is worked and a server is SIGKILLed every few seconds
  # and another like it started: the skewed one first, then a healthy one,
  # in turn, the skewed one's replacement skewed too. Jobs scheduled ahead
  # wait in the schedule meanwhile. Whatever a server's clock says, nothing
  # may be lost (a job still in Redis when the drain gives up is unfinished,
  # and said where it waits), no job may run twice unless a killed server
  # was running it or that run failed (only on the books' own write: a
  # loaded machine can hold the ledger's reply), no reaper may take a live
  # process for dead ("recovered N of its jobs" about a process never
  # killed), no scheduled job may start early, nor late beyond the time no
  # server could beat (BeatWatch),
  # and the jobs a killed skewed server was running must run again within
  # the documented bound (2 x heartbeat_interval + reaper_interval x 1.2, +5 s
  # on a shared machine). The skew is measured, not assumed: jobs stamp the
  # ledger's clock and their server's, and the skewed server's log lines
  # carry its clock.
  class ClockSkew < Scenario
    NUMBER = 17
    NAME = "clock-skew"
    SKEWS = {"ahead" => 400, "behind" => -400}.freeze
    PROCESSES = 3
    CONCURRENCY = 10
    SLACK = 5 # seconds, for a shared machine, as scenario 2
    TOLERANCE = 5 # seconds between the skew set and the skew seen
    LONG_MS = 1500 # every tenth job: each server is running some when it is killed
    CAPSULE = "capsules:\n  timed: {concurrency: 2, queues: [timed]}\n"
    DRAIN_CAP = 600 # seconds the drain waits at most, however its jobs still finish

    def run
      Faketime.library # a clear error before any server starts
      @random = Random.new(NUMBER)
      runs = SKEWS.map { |label, skew| [label, phase(label, skew)] }
      totals = %w[lost doubled false_recoveries early late].to_h do |key|
        [key, runs.sum { |_, figures| figures[key] }]
      end
      {"runs" => runs.size, **totals}.merge(*runs.map { |label, figures| figures.transform_keys { |k| "#{label}_#{k}" } })
    end

    private

    def ahead = size(60, 15) # seconds ahead the scheduled jobs are due

    def kill_every = size(8.0, 3.0)

    def min_kills = size(4, 2) # half of them the skewed server

    # The quick timings, but for a heartbeat TTL longer than the bound (as
    # Deckhand's default is): a killed server's record must not expire
    # before its jobs are due back, or its expiry alone would bring them
    # back in time, whatever the reapers made of its beats.
    def settings = timing.merge(heartbeat_ttl: [timing[:heartbeat_ttl], 20].max, yaml: CAPSULE)

    def phase(label, skew)
      @ledger.reset
      redis_server = start_redis("redis-#{label}")
      redis = Torture.redis(redis_server.url)
      fleet = new_fleet(redis_server.url, name: "fleet-#{label}", settings: settings)
      fleet.spawn(concurrency: CONCURRENCY, wait: false, env: Faketime.env(skew))
      (PROCESSES - 1).times { fleet.spawn(concurrency: CONCURRENCY, wait: false) }
      fleet.alive.each { |m| fleet.ready(m) }
      @beats = BeatWatch.new(redis)
      client = client(redis_server.url)
      due = schedule(client)
      stream = PushStream.new(client, ["default"], pause: 0.005, job: lambda do |n|
        {"class" => "Torture::ClockJob", "args" => [(n % 10).zero? ? LONG_MS : 5 + (n % 40)]}
      end).start
      churn_for(fleet, ahead + 3)
      stream.stop
      fleet.alive.each { |m| fleet.ready(m) } # the last replacement's boot, seen as it is logged
      @ledger.enqueued(stream.acked.map(&:jid) + due.keys)
      # A job running at three kills is quarantined as a poison pill, as the
      # churn scenarios' are: in the dead set with its bytes, accounted for.
      drained = drain_on_progress(stall) do
        beat_sample(fleet)
        @ledger.quarantined(poison_pills(redis))
      end
      drained[:where] = where(redis) unless drained[:done]
      reaped = wait_for_reaping(redis, fleet, bound + SLACK)
      crashed = fleet.exited
      fleet.stop_all
      judge(label, skew, fleet, due, stream, drained: drained, reaped: reaped, crashed: crashed)
    end

    # Seconds the drain waits for the next job to finish: the recovery
    # bound, the shared machine's slack, and the first retry's 15 s and more.
    def stall = bound + SLACK + 20

    # Waits for every job to finish as long as jobs still finish: on a loaded
    # machine the backlog drains slowly, which is not loss. Gives up once
    # no job finished for `stall` seconds (the fleet stuck), or after
    # DRAIN_CAP. {done:, waited: seconds}
    def drain_on_progress(stall, &each_poll)
      started = moved = now
      finished = -1
      until drain(1, &each_poll)
        count = @ledger.done_count
        finished, moved = count, now if count > finished
        return {done: false, waited: now - started} if now - moved > stall || now - started > DRAIN_CAP
      end
      {done: true, waited: now - started}
    end

    # Where the unfinished jobs are (JobCensus), read while the fleet runs:
    # a job moving between two keys as they are read may be missed, so the
    # ones found nowhere are looked for once more.
    def where(redis)
      census = JobCensus.new(redis)
      places = census.places(@ledger.missing)
      return places if places["nowhere"].zero?
      again = census.places(@ledger.missing)
      places.merge("nowhere" => [places["nowhere"], again["nowhere"]].min)
    end

    # Jobs due `ahead` seconds from now, a quarter second apart, on a capsule
    # of their own (the stream's backlog never delays them): jid => time due.
    def schedule(client)
      start = Time.now.to_f + ahead
      Array.new(size(20, 8)) do |i|
        at = start + (i * 0.25)
        [client.push("class" => "Torture::ClockJob", "args" => [0], "queue" => "timed", "at" => at), at]
      end.to_h
    end

    # Runs for `seconds` and until min_kills kills: every kill_every seconds,
    # once all three are up, the skewed server, then a healthy one, in turn.
    def churn_for(fleet, seconds)
      started = now
      next_kill = started + kill_every
      until now - started >= seconds && fleet.kills.size >= min_kills
        if now - started > seconds + 120
          @failures << "only #{fleet.kills.size} kills in #{(now - started).round}s (a kill waits for every server up, the skewed one running a job)"
          break
        end
        pick = ->(booted) { victim(booted, fleet.kills.size) }
        next_kill = now + kill_every if now >= next_kill && fleet.replace_one(random: @random, processes: PROCESSES, pick: pick)
        beat_sample(fleet) # also notes when each replacement boots: its log's clock is read against that moment
        sleep 0.1
      end
    end

    def beat_sample(fleet) = @beats.sample(fleet.booted.map { |m| fleet.identity(m) })

    # The skewed server while it runs a job (nil until it does: its jobs'
    # recovery is what the run checks), then a healthy one, in turn.
    def victim(booted, kills)
      skewed, healthy = booted.partition { |m| skewed?(m) }
      return healthy.sample(random: @random) if kills.odd?
      skewed.find { |m| @ledger.running(m.pid).positive? }
    end

    def skewed?(member) = !member.options[:env].empty?

    def judge(label, skew, fleet, due, stream, drained:, reaped:, crashed:)
      books = ClockBooks.new(@ledger, fleet, crashed: crashed)
      unfinished = @ledger.missing.size
      lost = drained[:where] ? drained[:where]["nowhere"] : unfinished
      doubled, killed_running, retried = books.doubled
      false_recoveries = books.false_recoveries
      early, lates = books.timing(due, late: SLACK)
      starved, lates = lates.partition { |_, at, started, _| started && started <= SLACK + @beats.silence(at, at + started) }
      unbooked, lates = lates.partition { |jid, *| books.books_failed?(jid) }
      late = lates.size
      skewed_pids = fleet.members.select { |m| skewed?(m) }.map(&:pid)
      skewed_kills = fleet.kills.select { |kill| skewed_pids.include?(kill.first) }
      orphans, delays = books.reruns(skewed_kills)
      seen = books.clock_offset(skewed_pids)
      healthy = books.clock_offset(fleet.members.map(&:pid) - skewed_pids)
      logged = fleet.members.select { |m| skewed?(m) }.filter_map { |m| books.log_offset(m) }
      failures = []
      failures << unfinished_text(unfinished, drained) unless drained[:done] && unfinished.zero?
      failures << "#{doubled} jobs run twice with no kill or failure to explain it (#{books.doubled_examples.join("; ")})" unless doubled.zero?
      foreign = books.failure_messages.reject { |message| message.start_with?(ClockBooks::BOOKS_FAILED) }
      failures << "jobs failed other than on the books, and ran again (#{foreign.first(2).join("; ")})" unless foreign.empty?
      failures << "#{false_recoveries} recoveries of live processes" unless false_recoveries.zero?
      failures << "#{early} of #{due.size} scheduled jobs started early, #{late} late#{late_text(lates)}" unless (early + late).zero?
      failures << "no killed skewed server was running a job no other server had started: its recovery unchecked" if orphans.zero?
      failures << "#{delays.count(nil)} jobs of killed skewed servers never ran again" if delays.include?(nil)
      slow = delays.compact.max.to_f
      failures << "a killed skewed server's job ran again after #{secs(slow)} (bound #{secs(bound)} + #{SLACK}s)" if slow > bound + SLACK
      failures << "the skewed server ran no job: its skew unconfirmed" unless seen
      failures << "the skewed server's jobs read #{secs(seen)} off, not #{skew}s" if seen && (seen - skew).abs > TOLERANCE
      failures << "the healthy servers' jobs read #{secs(healthy)} off" if healthy && healthy.abs > TOLERANCE
      failures << "the skewed server's log read #{logged.map { |o| secs(o) }.join(",")} off" unless !logged.empty? && logged.all? { |o| (o - skew).abs <= TOLERANCE }
      failures << "dead processes not reaped" unless reaped
      failures << "#{crashed.size} servers died on their own" unless crashed.empty?
      @failures.concat(failures.map { |f| "#{label} #{format("%+d", skew)}s: #{f}" })
      {
        "skew" => format("%+ds", skew), "skew_seen" => signed(seen), "log_skew" => signed(logged.first),
        "jobs" => stream.acked.size + due.size, "kills" => fleet.kills.size, "skewed_kills" => skewed_kills.size,
        "lost" => lost, "unfinished" => unfinished, "quarantined" => @ledger.quarantined_count, "drained_in" => secs(drained[:waited]),
        "doubled" => doubled, "killed_running" => killed_running, "retried" => retried, "false_recoveries" => false_recoveries,
        "scheduled" => due.size, "early" => early, "late" => late, "late_starved" => starved.size, "late_unbooked" => unbooked.size, "skewed_orphans" => orphans,
        "skewed_rerun_max" => secs(delays.compact.max), "bound" => secs(bound + SLACK)
      }
    end

    def unfinished_text(unfinished, drained)
      where = drained[:where] ? ": #{JobCensus.text(drained[:where])}" : ""
      why = (drained[:waited] > DRAIN_CAP) ? "after #{DRAIN_CAP}s" : "no job finished for #{secs(stall)}"
      "#{unfinished} jobs unfinished (#{why}, #{secs(drained[:waited])} into the drain)#{where}"
    end

    # How late each late job started, how late the scheduler moved it to its
    # queue, and how long no server beat meanwhile, with the load.
    def late_text(lates)
      return "" if lates.empty?
      shown = lates.map do |_, at, started, moved|
        "#{secs(started)} (moved #{secs(moved)}, no server beating for #{secs(@beats.silence(at, at + started.to_f))})"
      end
      " by #{shown.join(", ")}, load #{File.read("/proc/loadavg").split.first}"
    end

    def signed(value) = value.nil? ? "n/a" : format("%+.1fs", value)
  end
end
