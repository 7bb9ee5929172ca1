# frozen_string_literal: true

# No-op throughput alone (scenario 1, with the allocation and Redis-cost
# figures its 10-thread runs give): `ruby bench/throughput.rb [--quick] [--rounds N]`.
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
Dir.chdir(File.expand_path("..", __dir__))
require_relative "lib/deckhand_bench/command"

exit DeckhandBench::Command.run(["throughput", *ARGV])
