# frozen_string_literal: true

# Memory of a swarm whose application builds ~100 MB at boot: RSS of the
# supervisor and each worker, and how much of it is shared, from
# /proc/PID/smaps_rollup. `ruby bench/swarm_memory.rb [BOOT_MB] [PROCESSES]`
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require_relative "swarm/harness"

boot_mb = Integer(ARGV[0] || 100)
processes = Integer(ARGV[1] || 2)
FIELDS = %w[Rss Pss Shared_Clean Shared_Dirty Private_Clean Private_Dirty].freeze
LABELS = %w[Rss Pss ShrClean ShrDirty PrvClean PrvDirty].freeze

def rollup(pid)
  File.foreach("/proc/#{pid}/smaps_rollup").each_with_object({}) do |line, out|
    name, kb = line.split
    out[name.chomp(":")] = kb.to_i if FIELDS.include?(name.chomp(":"))
  end
end

def row(label, pid, values)
  cells = FIELDS.map { |f| format("%8.1f", values.fetch(f) / 1024.0) }
  puts format("%-22s %8d %s", label, pid, cells.join(" "))
end

harness = SwarmBench::Harness.new
begin
  pid, log = harness.deckhand("-P", processes.to_s, "-c", "5", env: {"SWARM_BENCH_BOOT_MB" => boot_mb.to_s})
  harness.wait_for_log(log, /started as /, count: processes)
  # Let every worker run its heartbeat and fetch loops (and a few no-op jobs)
  # so the figures are those of running workers, not of just-forked ones.
  Deckhand::Client.new(config: Deckhand::Config.new(redis: {url: harness.url}))
    .push_bulk("class" => "SwarmBench::NoopJob", "args" => Array.new(2000) { |i| [i] })
  sleep 5
  workers = SwarmBench::Harness.children_of(pid)
  puts "Ruby #{RUBY_VERSION}, #{harness.server_version}, #{Etc.nprocessors} cores; app builds ~#{boot_mb} MB at boot; -P #{processes}"
  puts format("%-22s %8s %s", "process", "pid", LABELS.map { |f| format("%8s", f) }.join(" "))
  puts format("%-22s %8s %s", "", "", (["      MB"] * FIELDS.size).join(" "))
  row("supervisor", pid, rollup(pid))
  totals = Hash.new(0)
  workers.each_with_index do |w, i|
    values = rollup(w)
    FIELDS.each { |f| totals[f] += values[f] }
    row("worker #{i}", w, values)
  end
  super_pss = rollup(pid)["Pss"]
  puts format("Pss of the whole swarm: %.1f MB; sum of RSS: %.1f MB", (totals["Pss"] + super_pss) / 1024.0,
    (totals["Rss"] + rollup(pid)["Rss"]) / 1024.0)
  harness.stop(pid)

  # For comparison: the same application in one process without a swarm.
  single, log = harness.deckhand("-c", "5", env: {"SWARM_BENCH_BOOT_MB" => boot_mb.to_s})
  harness.wait_for_log(log, /started as /)
  sleep 5
  row("one process, no swarm", single, rollup(single))
  harness.stop(single)
ensure
  harness.close
end
