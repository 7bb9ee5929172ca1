# frozen_string_literal: true

require_relative "../support/driver_redis"
module Torture
  # 2. Two servers, long jobs running on one of them; that one is SIGKILLed and
  # nothing is started in its place. The survivor alone must run its jobs,
  # within the documented bound (2 x heartbeat_interval + reaper_interval x 1.2).
  class RecoveryWithoutRestart < Scenario
    NUMBER = 2
    NAME = "recovery-without-restart"
    JOBS = 10
    SLACK = 5 # seconds, for a shared machine

    def run
      seconds = size(15, 3)
      redis_server = start_redis
      redis = Torture.redis(redis_server.url)
      fleet = new_fleet(redis_server.url)
      pair = Array.new(2) { fleet.spawn(concurrency: JOBS, wait: false) }.each { |m| fleet.ready(m) }
      push_work(client(redis_server.url), Array.new(JOBS, seconds * 1000))
      check(wait_until(30) { @ledger.starts.size >= JOBS }, "the jobs never all started")
      victim = pair.max_by { |m| inflight_jobs(redis, fleet.identity(m)) }
      orphans = inflight_jobs(redis, fleet.identity(victim))
      fleet.kill(victim)
      killed_at = now
      drained = drain(bound + seconds + 60)
      finished_after = now - killed_at
      books = @ledger.analysis(kills: fleet.kills)
      delays = books[:rerun_delays]
      check(drained && books[:lost].zero?, "#{books[:lost]} jobs lost")
      check(delays.size == orphans, "#{orphans - delays.size} orphans never ran again")
      check((delays.max || 0) <= bound + SLACK, "recovery took longer than the bound")
      {
        "orphans" => orphans, "rerun_after_p50" => secs(percentile(delays, 50)), "max" => secs(delays.max),
        "bound" => secs(bound), "all_finished_after" => secs(finished_after), "lost" => books[:lost],
        "heartbeat_ttl" => timing[:heartbeat_ttl], "reaper_interval" => timing[:reaper_interval]
      }
    end
  end
end
