# frozen_string_literal: true

# The benchmark's jobs, for a Sidekiq server:
#
#   bundle exec sidekiq -r ./lib/deckhand/bench/app/sidekiq_app.rb -c 10 -q bench
#
# deckhand_app.rb runs the same jobs (app/jobs.rb) on Deckhand.
require "logger"
require "sidekiq"
require_relative "jobs"

Sidekiq.configure_server { |config| config.logger.level = Logger::WARN }
Deckhand::Bench::Probe.install

Deckhand::Bench::Jobs.define(Sidekiq::Job)
