# frozen_string_literal: true

# The benchmark's jobs, for a Deckhand server:
#
#   exe/deckhand -r lib/deckhand/bench/app/deckhand_app.rb -c 10 -q bench
#
# sidekiq_app.rb defines the same classes with the same bodies for Sidekiq.
require "logger"
require_relative "../../../deckhand"
require_relative "../probe"

Deckhand.config.logger.level = Logger::WARN
Deckhand::Bench::Probe.install

class BenchNoopJob
  include Deckhand::Job

  def perform(_name, _number, _options) = Deckhand::Bench::Probe.tick
end

class BenchCpuJob
  include Deckhand::Job

  def perform(_name, _number, _options)
    Deckhand::Bench::Probe.sieve(Deckhand::Bench::Probe::SIEVE_LIMIT)
    Deckhand::Bench::Probe.tick
  end
end

class BenchIoJob
  include Deckhand::Job

  def perform(_name, _number, _options)
    sleep Deckhand::Bench::Probe::IO_SECONDS
    Deckhand::Bench::Probe.tick
  end
end

class BenchLatencyJob
  include Deckhand::Job

  def perform(_name, _number, options) = Deckhand::Bench::Probe.started(options["pushed_at"])
end
