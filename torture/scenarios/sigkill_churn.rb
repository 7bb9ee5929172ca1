# frozen_string_literal: true

module Torture
  # 1. Three servers work through a pile of 1-20 ms jobs while one of them,
  # picked at random, is SIGKILLed every few seconds and started again. Nothing
  # may be lost and nothing may stay in-flight at the end.
  #
  # With JRuby servers (bin/torture --jruby) a replacement takes seconds to
  # boot, a minute or more on a loaded machine: the next kill waits until every
  # server is up, or the churn would soon leave no server at all, and the
  # drain gets longer.
  class SigkillChurn < Scenario
    NUMBER = 1
    NAME = "sigkill-churn"
    PROCESSES = 3
    CONCURRENCY = 10

    def run
      jobs = size(50_000, 10_000)
      every = size(3.0, 1.0)
      redis_server = start_redis
      redis = RedisClient.new(url: redis_server.url)
      fleet = new_fleet(redis_server.url)
      PROCESSES.times { fleet.spawn(concurrency: CONCURRENCY, wait: false) }
      fleet.alive.each { |m| fleet.ready(m) }
      random = Random.new(jobs)
      push_work(client(redis_server.url), Array.new(jobs) { random.rand(1..20) })
      next_kill = now + every
      drained = drain(size(900, 120) * (jruby? ? 5 : 1)) do
        next unless now >= next_kill && @ledger.done_count < jobs * 0.9
        booted = fleet.alive.select { |m| fleet.identity(m) }
        next if jruby? && booted.size < PROCESSES
        victim = booted.sample(random: random)
        next unless victim # every server still booting (a loaded machine): kill one once it is up
        fleet.kill(victim)
        fleet.spawn(concurrency: CONCURRENCY, wait: false)
        next_kill = now + every
      end
      check(drained, "jobs still unfinished after the drain timeout")
      check(wait_for_reaping(redis, fleet, bound + 30), "dead processes not reaped")
      fleet.stop_all
      figures(@ledger.analysis(kills: fleet.kills), fleet.kills.size, jobs, leftovers(redis), redis)
    end

    private

    def figures(books, kills, jobs, leftover, redis)
      delays = books[:rerun_delays]
      check(books[:lost].zero?, "#{books[:lost]} jobs lost")
      check(leftover.zero?, "#{leftover} in-flight records left")
      {
        "jobs" => jobs, "processes" => PROCESSES, "kills" => kills, "lost" => books[:lost],
        "duplicate_runs" => books[:duplicate_starts],
        "per_kill" => kills.zero? ? 0 : (books[:duplicate_starts].to_f / kills).round(1),
        "kill_to_rerun_p50" => secs(percentile(delays, 50)), "max" => secs(delays.max),
        "leftover_inflight" => leftover, "quarantined" => redis.call("ZCARD", "dead")
      }
    end
  end
end
