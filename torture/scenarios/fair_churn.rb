# frozen_string_literal: true

require_relative "../support/driver_redis"
module Torture
  # 12. A fair queue (docs/fair-queues.md) under SIGKILL churn: one tenant
  # pushes a big backlog, four others small ones, while three servers work
  # the queue and one of them is SIGKILLed every few seconds and started
  # again. The killed servers' jobs go back to the queue, the tenants' jobs
  # still wait in their fair order: nothing may be lost, nothing may stay in
  # flight, and once drained no tenant's job or record is left behind.
  class FairChurn < Scenario
    NUMBER = 12
    NAME = "fair-churn"
    PROCESSES = 3
    CONCURRENCY = 10
    QUEUE = "fair"

    def run
      backlog = size(30_000, 6_000)
      every = size(3.0, 1.0)
      redis_server = start_redis
      redis = Torture.redis(redis_server.url)
      fleet = new_fleet(redis_server.url)
      PROCESSES.times { fleet.spawn(concurrency: CONCURRENCY, queues: [QUEUE], wait: false) }
      fleet.alive.each { |m| fleet.ready(m) }
      random = Random.new(backlog)
      push = Deckhand::Client.new(config: Deckhand::Config.new(redis: {url: redis_server.url}, fair_queues: {QUEUE => {}}))
      push_tenant(push, "big", Array.new(backlog) { random.rand(1..20) })
      %w[small-1 small-2 small-3 small-4].each { |tenant| push_tenant(push, tenant, Array.new(backlog / 40) { random.rand(1..20) }) }
      jobs = @ledger.enqueued_count
      churn(fleet, redis, jobs: jobs, every: every, random: random, processes: PROCESSES, timeout: size(900, 180))
      figures(@ledger.analysis(kills: fleet.kills), fleet.kills.size, jobs, leftovers(redis), redis)
    end

    private

    def push_tenant(client, tenant, durations_ms)
      jids = client.push_bulk("class" => "Torture::WorkJob", "args" => durations_ms.zip, "queue" => QUEUE, "tenant" => tenant)
      @ledger.enqueued(jids)
    end

    def figures(books, kills, jobs, leftover, redis)
      waiting = redis.call("ZCARD", "deckhand:fair:#{QUEUE}")
      tenants = redis.call("HKEYS", "deckhand:tenants:#{QUEUE}") - ["~vt"]
      check(books[:lost].zero?, "#{books[:lost]} jobs lost")
      check(leftover.zero?, "#{leftover} in-flight records left")
      check(waiting.zero? && tenants.empty?, "#{waiting} tenants' jobs and #{tenants.size} tenants left behind")
      {
        "jobs" => jobs, "tenants" => 5, "processes" => PROCESSES, "kills" => kills, "lost" => books[:lost],
        "duplicate_runs" => books[:duplicate_starts], "leftover_inflight" => leftover,
        "tenant_jobs_left" => waiting, "tenants_left" => tenants.size, "quarantined" => redis.call("ZCARD", "dead"),
        "boot_wait" => secs(@boot_wait)
      }
    end
  end
end
