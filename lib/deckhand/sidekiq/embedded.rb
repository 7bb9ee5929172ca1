# frozen_string_literal: true

require "deckhand/embedded"

module Sidekiq
  # What `Sidekiq.configure_embed` returns in drop-in mode: a Deckhand server
  # inside this process (Deckhand.embed, docs/embedding.md) with Sidekiq's
  # method names. `run` starts its threads and returns; the host owns its
  # signals and calls `stop` when it shuts down.
  #
  #   embedded = Sidekiq.configure_embed do |config|
  #     config.queues = %w[critical default]
  #     config.concurrency = 2
  #   end
  #   embedded.run
  #   # ... at exit:
  #   embedded.stop   # quiet, wait up to config[:timeout], hand the rest back
  #   embedded.run    # again, as Sidekiq's does (its load test's warm-up)
  class Embedded
    attr_reader :config

    def initialize(config)
      @config = config
      @server = nil
    end

    # A Deckhand embedded server runs once; Sidekiq's Embedded builds a new
    # launcher on each run, so a run after a stop builds a new server on the
    # same configuration.
    def run
      if running?
        raise Deckhand::Error, "Sidekiq::Embedded#run: this embedded server is already running; call stop before running it again"
      end
      @server = Deckhand.embed(config.config)
      @server.start
      self
    end

    def quiet = @server&.quiet

    def stop = @server&.stop

    def running? = @server&.running? || false
  end
end
