# frozen_string_literal: true

require_relative "../middleware/drop_in_chain"
require_relative "capsule_builder"
require_relative "handler_list"
require_relative "../periodic_manager"
require_relative "../accepted"

module Deckhand
  module DropIn
    # What `Sidekiq.configure_server { |config| ... }` yields in drop-in mode:
    # Sidekiq 7's configuration methods, written through to a Deckhand::Config.
    #
    #   Sidekiq.configure_server do |config|
    #     config.redis = {url: ENV["REDIS_URL"]}
    #     config.concurrency = 10
    #     config.queues = %w[critical default]
    #     config.capsule("single") { |cap| cap.concurrency = 1; cap.queues = %w[single] }
    #     config.server_middleware { |chain| chain.add AuditMiddleware }
    #     config.on(:shutdown) { Audit.flush }
    #     config.error_handlers << ->(error, context, _config) { Bugs.notify(error, context) }
    #     config.periodic { |mgr| mgr.register("0 2 * * *", "NightlyJob", retry: 2) }
    #   end
    class Configuration
      # Sidekiq's option keys (config[:key]) and the Deckhand setting each is.
      KEYS = {
        concurrency: :concurrency, queues: :queues, timeout: :timeout, max_retries: :max_retries,
        dead_max_jobs: :dead_max_jobs, dead_timeout_in_seconds: :dead_timeout, tag: :tag, labels: :labels,
        environment: :environment, average_scheduled_poll_interval: :scheduler_interval,
        poll_interval_average: :scheduler_poll_average, max_iteration_runtime: :max_iteration_runtime
      }.freeze
      # Sidekiq Pro calls for what Deckhand always does: a warning, nothing to change.
      BUILT_IN = {
        super_fetch!: "Deckhand's fetch is reliable already (in-flight records, recovery)",
        reliable_scheduler!: "Deckhand's scheduler moves each due job atomically already",
        reliable_push!: "set Deckhand's reliable_push setting instead"
      }.freeze
      REDIS_DROPPED = %i[size pool_timeout pool_name].freeze

      attr_reader :config

      def initialize(config)
        @config = config
      end

      # Sidekiq's redis options: redis-client's, plus pool sizing Deckhand
      # derives itself for its own pool (Sidekiq's `redis_pool` is sized by it).
      # As in Sidekiq they merge into those set before, REDIS_URL's to begin
      # with: `config.redis = {size: 3}` keeps the Redis and sizes the pool.
      def redis=(options)
        options = options.to_h.transform_keys(&:to_sym)
        @pool_sizing = pool_sizing.merge(options.slice(:size, :pool_timeout))
        options[:timeout] = options.delete(:network_timeout) if options.key?(:network_timeout)
        @config.redis = @config.redis.merge(options.except(*REDIS_DROPPED))
      end

      # A connection to this configuration's Redis, as Sidekiq.redis.
      def redis(&block)
        raise ArgumentError, "config.redis needs a block: config.redis { |conn| conn.get(\"key\") }; set options with config.redis = {...}" unless block
        Deckhand::Store::Connection::AppConnection.lend(@config.store, &block)
      end

      # The size: and pool_timeout: last given to redis=.
      def pool_sizing = @pool_sizing || {}

      def concurrency=(count)
        @config.concurrency = count
      end

      def concurrency = @config.concurrency

      # Sidekiq takes ["critical", "default"] or [["critical", 2], ...]; so does this.
      def queues=(list)
        @config.queues = Array(list).map { |entry| entry.is_a?(Array) ? entry.join(",") : entry.to_s }
      end

      def queues = @config.queues

      def capsule(name)
        builder = CapsuleBuilder.new(name)
        yield builder
        @config.capsule(name, concurrency: builder.concurrency, queues: builder.queues)
        builder
      end

      def server_middleware
        chain = MiddlewareChain.new(@config.server_middleware)
        yield chain if block_given?
        chain
      end

      def client_middleware
        chain = MiddlewareChain.new(@config.client_middleware)
        yield chain if block_given?
        chain
      end

      def on(event, &block)
        raise Unsupported.new("config.on(#{event.inspect})", "Deckhand fires #{Config::Events::NAMES.map(&:inspect).join(", ")}") unless Config::Events::NAMES.include?(event.to_sym)
        @config.events.on(event, &block)
      end

      # Sidekiq Enterprise's periodic jobs: Deckhand's (PeriodicManager).
      def periodic
        @config.periodic { |periodic| yield PeriodicManager.new(periodic) }
      end

      # Sidekiq 8 runs its threads at this priority. Deckhand's run at
      # Ruby's default: kept for code that reads it, noted once.
      def thread_priority=(priority)
        Accepted.note(@config.logger, :thread_priority, "its server's threads run at Ruby's default priority")
        @thread_priority = priority
      end

      attr_reader :thread_priority

      # Sidekiq 8 closes pooled connections idle this long. Deckhand's pool
      # holds one connection per thread it runs, each busy with fetches and
      # heartbeats; noted once (Sidekiq::Config keeps the timeout).
      def reap_idle_redis_connections(_timeout = 60)
        Accepted.note(@config.logger, :reap_idle_redis_connections, "its pool holds one connection per server thread, each kept busy")
      end

      def error_handlers = HandlerList.new(@config.error_handlers, self, errors: true)

      def death_handlers = HandlerList.new(@config.death_handlers, self, errors: false)

      def logger = @config.logger

      def logger=(logger)
        @config.logger = logger
      end

      # Sidekiq's dead_max_jobs of N keeps N - 1 jobs in the dead set (each
      # death trims ranks 0 through -N); Deckhand's keeps as many as it says.
      # So the Deckhand setting is one less than Sidekiq's key reads.
      def [](key)
        value = @config.public_send(setting(key))
        (key.to_sym == :dead_max_jobs) ? value + 1 : value
      end

      def []=(key, value)
        value = Array(value).map { |entry| entry.is_a?(Array) ? entry.join(",") : entry.to_s } if key.to_sym == :queues
        value = [Integer(value) - 1, 0].max if key.to_sym == :dead_max_jobs
        @config.public_send(:"#{setting(key)}=", value)
      end

      def fetch(key, default = nil)
        KEYS.key?(key.to_sym) ? self[key] : default
      end

      # Sidekiq Pro's reliability switches warn (Deckhand has them built in);
      # anything else Sidekiq's configuration has and this one lacks raises.
      def method_missing(name, *_args)
        return @config.logger.warn("Sidekiq config.#{name}: #{BUILT_IN[name]}; remove the call") if BUILT_IN.key?(name)
        raise Unsupported.new("Sidekiq's config.#{name}")
      end

      def respond_to_missing?(name, include_private = false) = BUILT_IN.key?(name) || super

      private

      def setting(key)
        KEYS[key.to_sym] || raise(Unsupported.new("Sidekiq option config[#{key.inspect}]", "supported: #{KEYS.keys.join(", ")}"))
      end
    end
  end
end
