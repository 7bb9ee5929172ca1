# frozen_string_literal: true

# The jobs of test/compat/mixed_fleet_test.rb, loaded unchanged on both sides
# of one Redis: by a real Sidekiq process (the sidekiq gem) and by `deckhand
# -r` in drop-in mode (deckhand/sidekiq loaded first, Active Job after, no
# sidekiq gem), and by the processes pushing to them. Every job records
# itself in the Redis list fleet:log with the side that ran it.
require "json"
require "logger"
require "sidekiq"
require "active_job"
unless defined?(Sidekiq::DECKHAND)
  # The sidekiq gem's adapter, as a Rails app of either version has it.
  require "rails"
  require "sidekiq/rails"
  require File.join(Gem.loaded_specs["sidekiq"].full_gem_path, "lib/active_job/queue_adapters/sidekiq_adapter")
end

ActiveJob::Base.logger = Logger.new(File::NULL)
ActiveJob::Base.queue_adapter = :sidekiq

module Fleet
  LOG = "fleet:log"

  def self.side = defined?(Sidekiq::DECKHAND) ? "deckhand" : "sidekiq"

  def self.record(*entry) = Sidekiq.redis { |conn| conn.call("RPUSH", LOG, JSON.generate([*entry, side])) }

  # Sees each job's class and wrapped class as the server got them.
  class Seen
    include Sidekiq::ServerMiddleware

    def call(_job, payload, _queue)
      Fleet.record("seen", payload["class"], payload["wrapped"])
      yield
    end
  end

  class PlainJob
    include Sidekiq::Job

    def perform(label) = Fleet.record("plain", label)
  end

  # Fails its first run, then runs from the retry set.
  class FlakyJob
    include Sidekiq::Job

    sidekiq_options retry: 3
    sidekiq_retry_in { 1 }

    def perform(label)
      tries = Sidekiq.redis { |conn| conn.call("INCR", "fleet:tries:#{label}") }
      Fleet.record("flaky", label, tries)
      raise "#{label}: first run fails" if tries == 1
    end
  end

  # Dies while fleet:doom:<label> is set; runs once it is gone.
  class DoomedJob
    include Sidekiq::Job

    sidekiq_options retry: 0

    def perform(label)
      raise "#{label}: doomed" if Sidekiq.redis { |conn| conn.call("EXISTS", "fleet:doom:#{label}") } == 1
      Fleet.record("doomed", label)
    end
  end

  # Holds its thread until the test pushes onto fleet:gate.
  class GateJob
    include Sidekiq::Job

    def perform(label)
      Fleet.record("gate", label)
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 20
      sleep 0.05 until Sidekiq.redis { |conn| conn.call("LPOP", "fleet:gate") } || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
    end
  end

  class RollJob < ActiveJob::Base
    def perform(label) = Fleet.record("active_job", label, provider_job_id)
  end
end

Sidekiq.configure_server { |config| config.server_middleware { |chain| chain.add(Fleet::Seen) } }
