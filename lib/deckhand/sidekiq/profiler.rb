# frozen_string_literal: true

require_relative "internals/server_internal"

module Sidekiq
  # Sidekiq 8's job profiler in drop-in mode: Deckhand's (Deckhand::Profiler,
  # docs/profiling.md), which a Deckhand server runs around every job that
  # has a `profile` token. For code that runs a job itself:
  #
  #   Sidekiq::Profiler.new(Sidekiq.default_configuration).call(job_hash) { job.perform }
  #   # => Vernier's result when the job was profiled; the profile is in Sidekiq::ProfileSet
  class Profiler
    EXPIRY = Deckhand::Store::Profiles::TTL

    def initialize(config)
      @profiler = Deckhand::Profiler.new(Deckhand::DropIn::ServerInternal.config_of(config))
    end

    def call(job, &) = @profiler.call(job, &)
  end
end
