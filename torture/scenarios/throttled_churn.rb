# frozen_string_literal: true

require_relative "../support/driver_redis"
module Torture
  # 9. Queue throttles under SIGKILL churn: three servers work a queue capped
  # at 3 running jobs fleet-wide and a queue paced at 50 jobs a second, while
  # one server is SIGKILLed every few seconds and another started (the
  # churn of scenario 1: a kill waits until every server is up). Nothing may
  # be lost, no more than 3 capped jobs may ever run at once, and every slot
  # of the dead must come back (the cap's count ends at 0).
  class ThrottledChurn < Scenario
    NUMBER = 9
    NAME = "throttled-churn"
    PROCESSES = 3
    CONCURRENCY = 5
    CAP = 3
    RATE = 50
    QUEUES = %w[capped paced].freeze
    THROTTLE = "throttle:\n  capped: {concurrency: #{CAP}}\n  paced: {rate: #{RATE}, per: second}\n"

    def run
      capped = size(2000, 500)
      paced = size(1500, 300)
      every = size(4.0, 1.5)
      redis_server = start_redis
      redis = Torture.redis(redis_server.url)
      fleet = new_fleet(redis_server.url, settings: timing.merge(yaml: THROTTLE))
      PROCESSES.times { fleet.spawn(concurrency: CONCURRENCY, queues: QUEUES, wait: false) }
      fleet.alive.each { |m| fleet.ready(m) }
      random = Random.new(capped)
      started = now
      push_work(client(redis_server.url), Array.new(capped) { random.rand(1..20) }, queue: "capped")
      push_work(client(redis_server.url), Array.new(paced, 0), queue: "paced")
      pushed_in = now - started
      drained_in = churn(fleet, redis, jobs: capped + paced, every: every, random: random, processes: PROCESSES,
        timeout: size(900, 180))
      figures(@ledger.analysis(kills: fleet.kills), fleet.kills.size, redis, pushed_in + drained_in)
    end

    private

    def figures(books, kills, redis, wall)
      held = redis.call("HGET", "deckhand:throttle:capped", "~held").to_i
      starts = @ledger.starts
      most = most_at_once(starts, @ledger.finishes, @capped)
      paced = starts.reject { |s| @capped[s.jid] }.map(&:at).sort
      check(books[:lost].zero?, "#{books[:lost]} jobs lost")
      check(most <= CAP, "#{most} capped jobs ran at once")
      check(held.zero?, "#{held} slots of the cap still held after every process stopped")
      {
        "jobs" => @ledger.enqueued_count, "kills" => kills, "lost" => books[:lost],
        "duplicate_runs" => books[:duplicate_starts], "capped_most_at_once" => most, "cap" => CAP,
        "slots_held_at_end" => held, "paced_rate" => "#{((paced.size - 1) / (paced.last - paced.first)).round(1)}/s",
        "paced_limit" => "#{RATE}/s", "leftover_inflight" => leftovers(redis), "drained_in" => secs(wall),
        "boot_wait" => secs(@boot_wait)
      }
    end

    def push_work(client, durations, queue:)
      jids = super
      @capped = jids.to_h { |jid| [jid, true] } if queue == "capped"
      jids
    end

    # The most capped runs that overlapped, counting only runs that finished
    # (a killed run's slot stays held until it is recovered, so leaving it out
    # can only lower the figure). Start and finish are recorded inside the slot.
    def most_at_once(starts, finishes, capped)
      ends = finishes.to_h { |f| [[f.jid, f.pid], f.at] }
      events = starts.filter_map do |s|
        finish = ends[[s.jid, s.pid]]
        [[s.at, 1], [finish, -1]] if capped[s.jid] && finish
      end.flatten(1).sort_by { |at, delta| [at, delta] }
      running = 0
      events.map { |_, delta| running += delta }.max || 0
    end
  end
end
