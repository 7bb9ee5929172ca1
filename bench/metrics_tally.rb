# frozen_string_literal: true

# What recording one job's metrics costs a server thread (Store::Records::ExecutionMetrics::Tally#record,
# the only per-job metrics work; Redis is written once per heartbeat):
#
#   ruby bench/metrics_tally.rb [LIB]      # LIB: another checkout's lib/ to compare
#
# Records 1,000,000 jobs of 5 classes (durations 0 to 209 ms, 2% failures),
# five times, and prints the best run's ns per job with the Ruby version.
# Compare two trees on the same machine, one right after the other: the
# machine's load moves the figure more than small changes do.
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
lib = File.expand_path(ARGV[0] || "../lib", ARGV[0] ? Dir.pwd : __dir__)
$LOAD_PATH.reject! { |path| File.expand_path(path) == File.expand_path("../lib", __dir__) }
$LOAD_PATH.unshift(lib)
require "deckhand"
require "deckhand/store/records/execution_metrics"

JOBS = 1_000_000
CLASSES = %w[A B C D E].freeze
tally = Deckhand::Store::Records::ExecutionMetrics::Tally.new
best = Array.new(5) do
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  JOBS.times { |i| tally.record(CLASSES[i % 5], (i % 300) * 0.7, (i % 50).zero?) }
  tally.take
  Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
end.min
puts format("Tally#record: %.0f ns per job (best of 5 x %d) from %s, %s", best / JOBS * 1e9, JOBS, lib, RUBY_DESCRIPTION)
