# frozen_string_literal: true

# The benchmark's jobs, for a Sidekiq server:
#
#   bundle exec sidekiq -r ./lib/deckhand/bench/app/sidekiq_app.rb -c 10 -q bench
#
# deckhand_app.rb defines the same classes with the same bodies for Deckhand.
require "logger"
require "sidekiq"
require_relative "../probe"

Sidekiq.configure_server { |config| config.logger.level = Logger::WARN }
Deckhand::Bench::Probe.install

class BenchNoopJob
  include Sidekiq::Job

  def perform(_name, _number, _options) = Deckhand::Bench::Probe.tick
end

class BenchCpuJob
  include Sidekiq::Job

  def perform(_name, _number, _options)
    Deckhand::Bench::Probe.sieve(Deckhand::Bench::Probe::SIEVE_LIMIT)
    Deckhand::Bench::Probe.tick
  end
end

class BenchIoJob
  include Sidekiq::Job

  def perform(_name, _number, _options)
    sleep Deckhand::Bench::Probe::IO_SECONDS
    Deckhand::Bench::Probe.tick
  end
end

class BenchLatencyJob
  include Sidekiq::Job

  def perform(_name, _number, options) = Deckhand::Bench::Probe.started(options["pushed_at"])
end
