# frozen_string_literal: true

# What a successful run's bookkeeping costs in the server (Tally#record of
# a success), with a Tally file given, so a change to it can be weighed
# against the one before it (docs/web.md, "Metrics layout"):
#
#   git show HEAD~1:lib/deckhand/store/records/execution_metrics/tally.rb > tmp/tally_before.rb
#   ruby bench/tally_success_cost.rb tmp/tally_before.rb
#   ruby bench/tally_success_cost.rb lib/deckhand/store/records/execution_metrics/tally.rb
require_relative "../lib/deckhand/store/records/execution_metrics/histogram"
load(ARGV[0] || File.expand_path("../lib/deckhand/store/records/execution_metrics/tally.rb", __dir__))

tally = Deckhand::Store::Records::ExecutionMetrics::Tally.new
n = 2_000_000
3.times { |i| tally.record("Warm#{i}", 1.0, false) }
best = Array.new(3) do
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  n.times { tally.record("ReportJob", 12.5, false) }
  Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
end.min
puts format("%s: %.1f ns per successful record (best of 3 x %d), ruby %s", File.basename(ARGV[0] || "tally.rb"), best * 1e9 / n, n, RUBY_VERSION)
