# frozen_string_literal: true

# The Active Job benchmark's application, for either system's server (and for
# the bench process that pushes): one no-op Active Job class on the adapter
# BENCH_SYSTEM names. bench/active_job.rb starts the servers:
#
#   BENCH_SYSTEM=deckhand ... bundle exec exe/deckhand -r bench/app/active_job_app.rb -c 10 -q bench
#   BENCH_SYSTEM=sidekiq  ... bundle exec sidekiq -r ./bench/app/active_job_app.rb -c 10 -q bench
require "logger"
require "active_job"
require_relative "../lib/deckhand_bench/probe"

ActiveJob::Base.logger = Logger.new(File::NULL)

case ENV.fetch("BENCH_SYSTEM")
when "deckhand"
  require_relative "../../lib/deckhand"
  require_relative "../../lib/active_job/queue_adapters/deckhand_adapter"
  Deckhand.config.logger.level = Logger::WARN
  Deckhand.config.fetch_window = Float(ENV["BENCH_WINDOW"]) if ENV["BENCH_WINDOW"]
  ActiveJob::Base.queue_adapter = :deckhand
  if ENV["BENCH_EXPECT"].to_i.positive?
    require_relative "../lib/deckhand_bench/news_ages"
    DeckhandBench::NewsAges.install
  end
when "sidekiq"
  require "sidekiq"
  require "sidekiq/rails" # Sidekiq keeps its Active Job wrapper there
  require "active_job/queue_adapters/sidekiq_adapter"
  Sidekiq.configure_server { |config| config.logger.level = Logger::WARN }
  ActiveJob::Base.queue_adapter = :sidekiq
end

DeckhandBench::Probe.install if ENV["BENCH_EXPECT"].to_i.positive?

class BenchAjNoopJob < ActiveJob::Base
  queue_as :bench

  def perform(_name, _number, _options) = DeckhandBench::Probe.tick
end
