# frozen_string_literal: true

require_relative "../support/driver_redis"
module Torture
  # 1. Three servers work through a pile of 1-20 ms jobs while one of them,
  # picked at random, is SIGKILLed every few seconds and started again. Nothing
  # may be lost and nothing may stay in-flight at the end.
  #
  # A kill waits until every server is up (a replacement takes 3 to 10 s to
  # boot on a loaded machine, a JRuby one a minute or more), or the churn
  # would soon leave no server at all; `boot_wait` is how long kills waited.
  class SigkillChurn < Scenario
    NUMBER = 1
    NAME = "sigkill-churn"
    PROCESSES = 3
    CONCURRENCY = 10

    def run
      jobs = job_count
      every = kill_every
      redis_server = start_redis
      redis = Torture.redis(redis_server.url)
      fleet = new_fleet(redis_server.url)
      PROCESSES.times { fleet.spawn(concurrency: CONCURRENCY, wait: false) }
      fleet.alive.each { |m| fleet.ready(m) }
      random = Random.new(jobs)
      push_work(client(redis_server.url), Array.new(jobs) { random.rand(1..20) })
      churn(fleet, redis, jobs: jobs, every: every, random: random, processes: PROCESSES, timeout: size(900, 120))
      figures(@ledger.analysis(kills: fleet.kills), fleet.kills.size, jobs, leftovers(redis), redis)
    end

    private

    def job_count = size(50_000, 10_000)

    def kill_every = size(3.0, 1.0)

    def figures(books, kills, jobs, leftover, redis)
      delays = books[:rerun_delays]
      check(books[:lost].zero?, "#{books[:lost]} jobs lost")
      check(leftover.zero?, "#{leftover} in-flight records left")
      {
        "jobs" => jobs, "processes" => PROCESSES, "kills" => kills, "lost" => books[:lost],
        "duplicate_runs" => books[:duplicate_starts],
        "per_kill" => kills.zero? ? 0 : (books[:duplicate_starts].to_f / kills).round(1),
        "kill_to_rerun_p50" => secs(percentile(delays, 50)), "max" => secs(delays.max),
        "leftover_inflight" => leftover, "quarantined" => redis.call("ZCARD", "dead"), "boot_wait" => secs(@boot_wait)
      }
    end
  end
end
