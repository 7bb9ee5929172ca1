# frozen_string_literal: true

# What acknowledgements cost Redis, without a server: the fetch script
# (store/scripts/fetch/fetch.lua, through Store::Scripts::Fetch) called from this
# process on a private redis-server, and Redis' own CPU time per call and
# per job (INFO cpu, its main thread). Two tables, medians of the rounds:
#
#   - one round trip of each kind: a PING (the floor of any round trip), an
#     acknowledgement alone (one lot's bitmap), and an acknowledgement of a
#     whole lot (its list and fields deleted);
#   - a drain of JOBS no-op payloads (bench/run's, 191 bytes) fetched LOT at
#     a time, each fetch carrying the acknowledgement of the lot before, with
#     0, 1 or 3 acknowledgements alone between two fetches: what Redis spends
#     per job as the jobs per round trip change.
#
#   ruby bench/ack_cost.rb                       # 3 rounds, 200,000 jobs, lots of 100 to 2,000
#   ruby bench/ack_cost.rb 5 100000 250,1000     # rounds, jobs, lot sizes
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
require "json"
require_relative "../lib/deckhand"
require_relative "../lib/deckhand/server"
require_relative "lib/deckhand_bench/lab"
require_relative "lib/deckhand_bench/redis_meter"
require_relative "lib/deckhand_bench/probe"

rounds = Integer(ARGV[0] || 3)
jobs = Integer(ARGV[1] || 200_000)
lots = (ARGV[2] || "100,250,500,1000,2000").split(",").map { |n| Integer(n) }
CALLS = 5_000
QUEUE = "bench"
load = -> { File.read("/proc/loadavg").split.first(3).join(" ") }
median = ->(list) { list.sort[list.size / 2] }
payload = lambda do |i|
  JSON.generate("class" => "BenchNoopJob", "args" => DeckhandBench::Probe.args(i), "queue" => QUEUE, "jid" => format("%024x", i),
    "retry" => true, "created_at" => 1_795_000_000_000, "enqueued_at" => 1_795_000_000_000)
end
bits = lambda do |size, settled|
  map = Deckhand::Store::Inflight::LotBits.empty_bits(size)
  settled.times { |p| Deckhand::Store::Inflight::LotBits.settle!(map, p) }
  map
end

puts "load average at start: #{load.call}"
DeckhandBench::Lab.open(yjit: false) do |lab|
  store = Deckhand::Store.new({url: lab.url})
  redis = lab.redis
  meter = DeckhandBench::RedisMeter.new(redis)
  fetch = Deckhand::Store::Scripts::Fetch.new(store, identity: "bench:1:ack", queues: [QUEUE])
  inflight = store.layout.inflight("bench:1:ack", QUEUE)
  puts "Redis #{lab.redis_version}, #{rounds} rounds"

  half = bits.call(1_000, 500)
  lot_id = 1_000_000
  single = {
    "PING" => -> { redis.call("PING") },
    "acknowledgement alone, one lot's bitmap" => lambda do
      redis.call("HSET", inflight, "7", "1000")
      fetch.call(limit: 0, sources: [], acks: [[0, 7, half, []]])
    end,
    "acknowledgement alone, a whole lot" => lambda do
      lot_id += 1
      redis.call("HSET", inflight, lot_id.to_s, "1000")
      fetch.call(limit: 0, sources: [], acks: [[0, lot_id, "", []]])
    end
  }
  per_call = Hash.new { |h, k| h[k] = [] }
  per_job = Hash.new { |h, k| h[k] = [] }
  rounds.times do |round|
    lab.fresh!
    single.each do |name, call|
      meter.start
      CALLS.times { call.call }
      per_call[name] << meter.finish(jobs: CALLS).cpu_us_per_job
    end
    lots.each do |size|
      [0, 1, 3].each do |alone|
        lab.fresh!
        jobs.times.each_slice(1_000) { |slice| redis.call("LPUSH", store.layout.queue(QUEUE), *slice.map(&payload)) }
        meter.start
        id = 0
        before = nil
        trips = 0
        loop do
          id += 1
          takes = fetch.call(limit: size, sources: [[0, id]], acks: before ? [[0, before, "", []]] : [])
          trips += 1
          break if takes.empty?
          taken = takes.first.payloads.size
          alone.times do |k|
            fetch.call(limit: 0, sources: [], acks: [[0, id, bits.call(taken, taken * (k + 1) / (alone + 1)), []]])
            trips += 1
          end
          before = id
        end
        cost = meter.finish(jobs: jobs)
        per_job[[size, alone]] << [cost.cpu_us_per_job, jobs.fdiv(trips)]
      end
    end
    puts "round #{round + 1} done (load #{load.call})"
  end

  puts
  puts "One round trip, Redis CPU µs (median of #{rounds} rounds of #{CALLS} calls):"
  per_call.each { |name, list| puts format("  %-42s %6.1f µs", name, median.call(list)) }
  puts
  puts "A drain of #{jobs} no-op jobs, Redis CPU µs a job (median of #{rounds}); jobs per round trip in brackets:"
  puts format("  %-10s %s", "lot", [0, 1, 3].map { |a| format("%-26s", "#{a} acknowledgements alone") }.join)
  lots.each do |size|
    cells = [0, 1, 3].map do |alone|
      list = per_job[[size, alone]]
      format("%-26s", format("%.3f (%.0f)", median.call(list.map(&:first)), list.first.last))
    end
    puts format("  %-10d %s", size, cells.join)
  end
end
puts "load average at end: #{load.call}"
