# frozen_string_literal: true

require_relative "../support/driver_redis"
module Torture
  # 3. A job that SIGKILLs its own process, among innocent jobs, on two
  # servers that are restarted whenever they die. The pill must be quarantined
  # after exactly max_recoveries (3) crashes, and every innocent job must run.
  class PoisonPill < Scenario
    NUMBER = 3
    NAME = "poison-pill"
    CRASHES = 3 # Deckhand's default max_recoveries

    def run
      innocents = size(2_000, 300)
      redis_server = start_redis
      redis = Torture.redis(redis_server.url)
      fleet = new_fleet(redis_server.url)
      2.times { fleet.spawn(concurrency: 4, wait: false) }
      fleet.alive.each { |m| fleet.ready(m) }
      client = client(redis_server.url)
      jids = push_work(client, Array.new(innocents / 2, 5))
      pill = client.push("class" => "Torture::PillJob", "args" => [])
      jids += push_work(client, Array.new(innocents - (innocents / 2), 5))
      started = now
      crashes = 0
      quarantined = wait_until(CRASHES * (bound + 30) + 30, step: 0.1) do
        fleet.exited.each do
          crashes += 1
          fleet.spawn(concurrency: 4, wait: false)
        end
        redis.call("ZCARD", "dead").positive?
      end
      took = now - started
      drained = drain(bound + 60)
      figures(redis, pill, jids, crashes, took, quarantined && drained)
    end

    private

    def figures(redis, pill, jids, crashes, took, finished)
      dead = redis.call("ZRANGE", "dead", 0, -1).map { |raw| JSON.parse(raw) }
      pill_entry = dead.find { |job| job["jid"] == pill }
      counted = jids.count { |jid| redis.call("HEXISTS", "deckhand:recoveries:default", jid) == 1 }
      lost = @ledger.missing.size
      check(finished, "the pill was not quarantined or the innocents did not finish in time")
      check(pill_entry && pill_entry["error_class"] == "Deckhand::PoisonPill", "the pill is not in the dead set as a PoisonPill")
      check(crashes == CRASHES, "#{crashes} crashes before the quarantine, not #{CRASHES}")
      check(lost.zero?, "#{lost} innocent jobs lost")
      check(dead.size == 1, "#{dead.size - 1} innocent jobs quarantined")
      {
        "crashes_before_quarantine" => crashes, "quarantined_after" => secs(took), "innocents" => jids.size,
        "innocents_lost" => lost, "innocents_quarantined" => dead.size - (pill_entry ? 1 : 0),
        "innocents_still_counted" => counted, "pill_runs" => @ledger.starts.count { |s| s.jid == pill }
      }
    end
  end
end
