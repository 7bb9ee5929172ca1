# frozen_string_literal: true

require_relative "batches"
require_relative "encryption"
require_relative "fair_queues"
require_relative "periodic_schedule"
require_relative "throttle"
require_relative "partitions"

module Deckhand
  class Config
    # The settings of the features a server runs for the application:
    # batches, encrypted arguments, queue throttles, periodic jobs, and the
    # executor jobs run inside (a Rails reloader).
    #
    #   config.batches = {callback_queue: "callbacks"}
    #   config.encryption(active_version: 2) { |version| KEYS.fetch(version) }
    #   config.throttle = {"api_calls" => {rate: 20, per: :second}}
    #   config.periodic { |cron| cron.register("0 2 * * *", "NightlyReportJob") }
    module FeatureSettings
      # Keys for encrypted arguments (Config::Encryption); nil when not set.
      attr_reader :encryption_keys

      # What each job runs inside (Rails sets its reloader): an object answering
      # `wrap { ... }`, or nil. Job classes are looked up inside it too, so code
      # reloaded in development is the code that runs.
      attr_reader :executor

      # True when job classes may be reloaded while the server runs (Rails in
      # development): classes are then looked up for every job, not cached.
      attr_reader :reloading

      # Defaults for batches (Config::Batches): callback_queue, success_ttl, idle_ttl.
      def batches = @batches ||= Batches.new

      # Defaults for batches from a Hash: {callback_queue:, success_ttl:, idle_ttl:}.
      def batches=(settings)
        change!(:batches)
        raise ConfigError, "batches must be a Hash like {callback_queue: \"callbacks\"}, got #{settings.inspect}" unless settings.is_a?(Hash)
        @batches = Batches.new(**settings.transform_keys(&:to_sym))
      end

      # Sets the keys for jobs with `deckhand_options encrypt: true`: new jobs
      # are sealed with `active_version`, the block gives the 32 key bytes of
      # any version (docs/job-options.md).
      def encryption(active_version:, &block)
        change!(:encryption)
        @encryption_keys = Encryption.new(active_version, block)
      end

      # Queue throttles (Config::Throttle): queue => {rate:, per:} and/or {concurrency:}.
      def throttle=(queues)
        per_queue(:throttle, Throttle, queues)
      end

      # Partitioned queues (Config::Partitions): queue => number of lists.
      def partitions=(queues)
        per_queue(:partitions, Partitions, queues)
      end

      # Fair queues (Config::FairQueues): queue => {by: ->(job) { tenant }, weights: {tenant => weight}}.
      def fair_queues=(queues)
        per_queue(:fair_queues, FairQueues, queues)
      end

      # Periodic (cron) jobs (Config::PeriodicSchedule): with a block, yields it to
      # register entries; `periodic = {jobs: {...}}` adds a config file's.
      def periodic
        return @periodic unless block_given?
        change!(:periodic)
        yield @periodic
        @periodic
      end

      # Periodic jobs from a Hash, as config/deckhand.yml gives them (docs/periodic.md).
      def periodic=(settings)
        change!(:periodic)
        @periodic.apply(settings)
      end

      def executor=(executor)
        change!(:executor)
        raise ConfigError, "executor must answer wrap { ... } (like a Rails reloader), got #{executor.inspect}" unless executor.nil? || executor.respond_to?(:wrap)
        @executor = executor
      end

      # What a failed job's backtrace goes through before it is stored (a
      # callable taking and returning an Array of lines, such as
      # `->(lines) { Rails.backtrace_cleaner.clean(lines) }`), or nil.
      attr_reader :backtrace_cleaner

      def backtrace_cleaner=(cleaner)
        change!(:backtrace_cleaner)
        raise ConfigError, "backtrace_cleaner must answer call(lines), got #{cleaner.inspect}" unless cleaner.nil? || cleaner.respond_to?(:call)
        @backtrace_cleaner = cleaner
      end

      # Auto-balance (docs/auto-balance.md): each capsule's threads follow the
      # backlog of its queues, and queues of CPU-bound jobs are held to about
      # as many running jobs as the process has cores to give them.
      def auto_balance=(value)
        change!(:auto_balance)
        raise ConfigError, "auto_balance must be true or false, got #{value.inspect}" unless value == true || value == false
        @auto_balance = value
      end

      def reloading=(value)
        change!(:reloading)
        @reloading = value ? true : false
      end

      # Whether a server logs a done or fail line for each job (true unless
      # set). Code that logs each job itself turns them off: a server
      # middleware of the application's, drop-in mode's custom job logger
      # (Sidekiq's config[:job_logger]) or Sidekiq's skip_default_job_logging.
      #
      #   config.job_log_lines = false
      def job_log_lines = @job_log_lines != false

      # false turns off a server's done and fail line for each job.
      def job_log_lines=(value)
        change!(:job_log_lines)
        raise ConfigError, "job_log_lines must be true or false, got #{value.inspect}" unless value == true || value == false
        @job_log_lines = value
      end

      private

      # Sets one of the settings given per queue (throttle, partitions,
      # fair_queues): the object itself when it is already its class
      # `klass`, else one built from the Hash (which validates it); then
      # checks it against the other two.
      def per_queue(setting, klass, queues)
        change!(setting)
        instance_variable_set(:"@#{setting}", queues.is_a?(klass) ? queues : klass.new(queues))
        check_partitioned
      end

      # A partitioned queue's throttle is split over its partitions, each
      # enforcing its share on its own list, so each needs a slot at least.
      # A fair queue's tenants wait beside one list; a partitioned queue's
      # lists would each need the whole queue's tenants (and in cluster mode
      # they sit in other slots), so a partitioned queue is no fair queue, yet.
      def check_partitioned
        return unless @partitions
        @throttle&.to_h&.each { |queue, limit| Throttle.partitioned!(queue, limit, @partitions.count(queue)) }
        both = @partitions.to_h.keys & (@fair_queues&.names || [])
        return if both.empty?
        raise ConfigError, "queue #{both.first.inspect} is both partitioned and a fair queue, which Deckhand does not support yet: " \
          "remove it from `partitions` or from `fair_queues`"
      end
    end
  end
end
