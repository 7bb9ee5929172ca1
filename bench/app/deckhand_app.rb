# frozen_string_literal: true

# The benchmark's jobs, for a Deckhand server. The bench starts it; by hand
# from the checkout:
#
#   REDIS_URL=redis://127.0.0.1:6379/0 BENCH_REDIS_URL=$REDIS_URL BENCH_EXPECT=100000 \
#     bundle exec exe/deckhand -r bench/app/deckhand_app.rb -c 10 -q bench
#
# sidekiq_app.rb runs the same jobs (jobs.rb) on Sidekiq.
require "logger"
require_relative "../../lib/deckhand"
require_relative "jobs"
require_relative "../lib/deckhand_bench/news_ages"
require_relative "../lib/deckhand_bench/wake_trace"

Deckhand.config.logger.level = Logger::WARN
Deckhand.config.fetch_window = Float(ENV["BENCH_WINDOW"]) if ENV["BENCH_WINDOW"] # seconds: the acknowledgement trade-off's sweep
DeckhandBench::Probe.install
DeckhandBench::NewsAges.install
DeckhandBench::WakeTrace.install(ENV["BENCH_WAKE_TRACE"]) if ENV["BENCH_WAKE_TRACE"] # bench/wake_path.rb

DeckhandBench::Jobs.define(Deckhand::Job)
