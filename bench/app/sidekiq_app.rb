# frozen_string_literal: true

# The benchmark's jobs, for a Sidekiq server. The bench starts it; by hand
# from the checkout:
#
#   REDIS_URL=redis://127.0.0.1:6379/0 BENCH_REDIS_URL=$REDIS_URL BENCH_EXPECT=100000 \
#     bundle exec sidekiq -r ./bench/app/sidekiq_app.rb -c 10 -q bench
#
# deckhand_app.rb runs the same jobs (jobs.rb) on Deckhand.
require "logger"
require "sidekiq"
require_relative "jobs"
require_relative "../lib/deckhand_bench/wake_trace"

Sidekiq.configure_server { |config| config.logger.level = Logger::WARN }
DeckhandBench::Probe.install
DeckhandBench::WakeTrace.install(ENV["BENCH_WAKE_TRACE"], system: :sidekiq) if ENV["BENCH_WAKE_TRACE"] # bench/wake_path.rb

DeckhandBench::Jobs.define(Sidekiq::Job)
