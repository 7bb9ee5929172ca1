# frozen_string_literal: true

require_relative "../../bench/lib/deckhand_bench/latency_proxy"

module Torture
  # 5. The servers reach Redis through a TCP proxy that adds 1 ms, then 10 ms,
  # of round-trip delay and resets 1 % of its connections (plus every open
  # connection once, mid-run, to cut replies off in flight). Nothing may be
  # lost; throughput is compared with the direct connection.
  class SlowNetwork < Scenario
    NUMBER = 5
    NAME = "slow-network"
    RESET_RATE = 0.01

    def run
      jobs = size(20_000, 2_000)
      redis_server = start_redis
      client = client(redis_server.url)
      figures = {}
      direct = phase("direct", redis_server.url, client, jobs)
      figures["direct"] = "#{direct.round}/s"
      resets = 0
      [0.001, 0.010].each do |delay|
        proxy = DeckhandBench::LatencyProxy.start(upstream_host: "127.0.0.1", upstream_port: redis_server.port,
          delay: delay, reset_rate: RESET_RATE)
        rate = phase("#{(delay * 1000).round}ms", proxy.url, client, jobs) { resets += proxy.reset_all }
        resets += proxy.stats["doomed"]
        proxy.stop
        figures["#{(delay * 1000).round}ms"] = "#{rate.round}/s (#{(100 * rate / direct).round}%)"
      end
      books = @ledger.analysis
      check(books[:lost].zero?, "#{books[:lost]} jobs lost")
      figures.merge("connection_resets" => resets, "lost" => books[:lost], "duplicate_runs" => books[:duplicate_starts])
    end

    private

    # One server through `url` works `jobs` no-op jobs; returns jobs per second.
    # The block runs once, when half of them are done.
    def phase(name, url, client, jobs, &midway)
      fleet = new_fleet(url, name: name)
      fleet.spawn(concurrency: 10)
      target = @ledger.done_count + jobs
      started = now
      push_work(client, Array.new(jobs, 0))
      drained = drain(size(600, 120)) do
        next unless midway && @ledger.done_count >= target - (jobs / 2)
        midway.call
        midway = nil
      end
      check(drained, "#{name}: jobs unfinished after the timeout")
      rate = jobs / (now - started)
      fleet.stop_all
      rate
    end
  end
end
