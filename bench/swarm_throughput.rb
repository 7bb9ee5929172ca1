# frozen_string_literal: true

# No-op throughput with 1 process and with a swarm of 2: 100,000 jobs pushed
# with perform_bulk before the server starts, timed from the first job taken
# to the last one done. `ruby bench/swarm_throughput.rb [JOBS] [ROUNDS]`
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require_relative "swarm/harness"

jobs = Integer(ARGV[0] || 100_000)
rounds = Integer(ARGV[1] || 2)
harness = SwarmBench::Harness.new
client = Deckhand::Client.new(config: Deckhand::Config.new(redis: {url: harness.url}))
redis = harness.redis

store = Deckhand::Store.new({url: harness.url}, size: 1)
in_flight = lambda do
  identities = redis.call("KEYS", "deckhand:inflight:*").map { |key| key.split(":")[2..-2].join(":") }.uniq
  identities.sum { |identity| Deckhand::Store::Inflight.count(store, identity, ["default"]) }
end

run = lambda do |args|
  redis.call("FLUSHALL")
  client.push_bulk("class" => "SwarmBench::NoopJob", "args" => Array.new(jobs) { |i| [i] })
  pid, = harness.deckhand(*args)
  sleep 0.002 until redis.call("LLEN", "queue:default") < jobs
  started = harness.now
  sleep 0.01 until redis.call("LLEN", "queue:default").zero? && in_flight.call.zero?
  elapsed = harness.now - started
  harness.stop(pid)
  elapsed
end

begin
  load = File.read("/proc/loadavg").split.first(3).join(" ")
  puts "Ruby #{RUBY_VERSION} (YJIT #{(defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled?) ? "on" : "off"}), " \
    "#{harness.server_version}, #{Etc.nprocessors} cores, load #{load} (a machine shared with other work)"
  setups = [["1 process", %w[-c 10]], ["swarm of 2", %w[-P 2 -c 10]]]
  # Rounds alternate between the setups, so a change in the machine's load
  # falls on both alike.
  times = Hash.new { |h, k| h[k] = [] }
  rounds.times { setups.each { |label, args| times[label] << run.call(args) } }
  times.each do |label, list|
    rates = list.map { |t| (jobs / t).round }
    puts format("%-12s %s jobs: %s s -> %s jobs/s (best %d)", label, jobs, list.map { |t| t.round(2) }.join(", "),
      rates.join(", "), rates.max)
  end
ensure
  harness.close
end
