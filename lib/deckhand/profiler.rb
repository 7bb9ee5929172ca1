# frozen_string_literal: true

require_relative "store/profiles"

module Deckhand
  # Profiles a job that asks for it, as Sidekiq 8 does: a job pushed with a
  # `profile` token runs under a sampling profiler (Vernier on Ruby 3.2.1 and
  # later, stackprof before), and when it succeeds its profile is kept a day
  # where Sidekiq keeps them (Store::Profiles), for the dashboard's Profiles
  # page, Sidekiq's ProfileSet and Firefox Profiler. A failed job keeps none.
  # The profiler gem loads when the first such job runs; without it the job
  # runs unprofiled and the log says once what to add. One profile is taken
  # at a time in a process (the profilers sample all of it): a job asking
  # while another is profiled runs unprofiled, and the log says so.
  #
  #   HardJob.set(profile: "mike").perform_async(1)        # one push
  #   class NightlyJob
  #     include Deckhand::Job
  #     deckhand_options profile: "nightly", profiler_options: {mode: :cpu}
  #   end
  #
  #   Deckhand::Profiler.new(config).call(job_hash) { run_the_job }   # what the server does
  class Profiler
    # A token names the profile's key (<token>-<jid>) and its address.
    TOKEN = /\A[\w.@-]{1,64}\z/
    # Ruby before 3.2.1 lacks what Vernier needs.
    VERNIER_RUBY = Gem::Version.new("3.2.1")

    @missing = {}
    # Vernier and stackprof sample the whole process, one profile at a time.
    ONE_AT_A_TIME = Mutex.new

    # JRuby has no sampling profiler gem: Vernier and stackprof are C
    # extensions.
    UNAVAILABLE = "a job asked to be profiled (profile: ...) but JRuby has no profiler Deckhand can use (Vernier and " \
      "stackprof are C extensions); the job ran unprofiled: profile it on MRI, or use a Java profiler (docs/jruby.md)"

    # nil when the gem could be loaded; else the message (logged once).
    def self.missing(gem_name)
      return @missing[gem_name] if @missing.key?(gem_name)
      require gem_name
      @missing[gem_name] = nil
    rescue LoadError
      @missing[gem_name] = "a job asked to be profiled (profile: ...) but the #{gem_name} gem is not installed: " \
        "add gem \"#{gem_name}\" to the Gemfile (docs/profiling.md); the job ran unprofiled"
    end

    # The backend for this Ruby: :vernier or :stackprof; :none on JRuby.
    def self.backend
      return :none if RUBY_ENGINE == "jruby"
      (Gem::Version.new(RUBY_VERSION) >= VERNIER_RUBY) ? :vernier : :stackprof
    end

    def initialize(config, backend: self.class.backend)
      @config = config
      @backend = backend
    end

    # Runs the block, profiled when the job has a valid token; returns what
    # the profiler returns (Vernier's result, stackprof's Hash), or the
    # block's value when the job runs unprofiled.
    def call(job, &block)
      token = job["profile"]
      return yield unless token.is_a?(String) && TOKEN.match?(token)
      if (message = (@backend == :none) ? UNAVAILABLE : self.class.missing(@backend.to_s))
        @config.logger.error(message) unless @warned
        @warned = true
        return yield
      end
      unless ONE_AT_A_TIME.try_lock
        @config.logger.info("#{job["class"]} #{job["jid"]} ran unprofiled: another job's profile was being taken in this process")
        return yield
      end
      begin
        started = Time.now
        result, data, elapsed = sample(options(job), &block)
        keep(job, token, started, elapsed, data)
        result
      ensure
        ONE_AT_A_TIME.unlock
      end
    end

    private

    def sample(options, &block)
      (@backend == :vernier) ? VernierRun.new(options).call(&block) : StackprofRun.new(options).call(&block)
    end

    def options(job)
      given = job["profiler_options"]
      given = {} unless given.is_a?(Hash)
      given.to_h { |key, value| [key.to_sym, (key.to_s == "mode") ? value.to_s.to_sym : value] }
    end

    # A profile that cannot be written is lost, not the job's success.
    def keep(job, token, started, elapsed, data)
      fields = {started_at: started.to_i, token: token, type: job["wrapped"] || job["class"], jid: job["jid"],
                elapsed: elapsed, size: data.bytesize, format: @backend, data: data}
      Store::Profiles.save(@config.store, token, job["jid"], fields, now: Time.now.to_f)
    rescue RedisError => e
      @config.logger.warn("the profile of #{job["jid"]} was not kept: #{e.message}")
    end
  end
end

require_relative "profiler/vernier_run"
require_relative "profiler/stackprof_run"
