# frozen_string_literal: true

# The benchmark's jobs, for a Deckhand server:
#
#   exe/deckhand -r lib/deckhand/bench/app/deckhand_app.rb -c 10 -q bench
#
# sidekiq_app.rb runs the same jobs (app/jobs.rb) on Sidekiq.
require "logger"
require_relative "../../../deckhand"
require_relative "jobs"

Deckhand.config.logger.level = Logger::WARN
Deckhand::Bench::Probe.install

Deckhand::Bench::Jobs.define(Deckhand::Job)
