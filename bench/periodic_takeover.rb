# frozen_string_literal: true

# Periodic jobs' leader handover, measured on real processes: three servers
# share a `*/2 * * * * *` entry; each round kills the leader (SIGKILL, then a
# graceful TERM) and times how long until another process holds the lease,
# and counts the ticks lost and doubled in the ledger (the entry's queue, not
# worked). `ruby bench/periodic_takeover.rb [ROUNDS]`
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require_relative "swarm/harness"
require "etc"
require "json"

rounds = Integer(ARGV[0] || 3)
harness = SwarmBench::Harness.new
config = File.join(Dir.mktmpdir("deckhand-periodic-bench"), "deckhand.yml")
File.write(config, <<~YAML)
  periodic:
    jobs:
      every-2s: {cron: "*/2 * * * * *", class: SwarmBench::NoopJob, queue: ticks}
YAML

def leader(redis) = redis.call("GET", "deckhand:periodic:leader")&.split(":", 2)&.last

def wait_until(timeout = 60)
  deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + timeout
  until (result = yield)
    raise "timed out" if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
    sleep 0.02
  end
  result
end

def ledger(redis) = redis.call("LRANGE", "queue:ticks", 0, -1).map { |raw| JSON.parse(raw)["periodic_at"] }.reverse

begin
  puts "Ruby #{RUBY_VERSION}, #{harness.server_version}, #{Etc.nprocessors} cores, load #{File.read("/proc/loadavg").split.first}; lease 6 s"
  servers = {}
  start = lambda do
    pid, log = harness.deckhand("-C", config, "-c", "1", "-q", "default")
    servers[pid] = log
  end
  3.times { start.call }
  redis = harness.redis
  results = []
  rounds.times do |round|
    %w[KILL TERM].each do |signal|
      wait_until { leader(redis) && ledger(redis).size >= 3 }
      identity = leader(redis)
      pid = identity.split(":")[-2].to_i
      before = ledger(redis).last
      Process.kill(signal, pid)
      from = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      wait_until { (now = leader(redis)) && now != identity }
      took = Process.clock_gettime(Process::CLOCK_MONOTONIC) - from
      Process.wait(pid)
      servers.delete(pid)
      after = wait_until { ledger(redis).find { |tick| tick > before } }
      results << [round + 1, signal, took, (after - before) / 2 - 1]
      start.call
    end
  end
  ticks = ledger(redis)
  puts "round  signal    takeover s   ticks lost"
  results.each { |r, s, t, lost| puts format("%-6d %-7s %12.2f %12d", r, s, t, lost) }
  puts "ticks in the ledger: #{ticks.size}, doubled: #{ticks.size - ticks.uniq.size}"
ensure
  servers&.each_key { |pid| Process.kill("TERM", pid) rescue nil } # standard:disable Style/RescueModifier
  servers&.each_key { |pid| Process.wait(pid) rescue nil } # standard:disable Style/RescueModifier
  harness.close
end
