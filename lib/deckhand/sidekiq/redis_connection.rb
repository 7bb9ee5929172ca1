# frozen_string_literal: true

module Sidekiq
  # `Sidekiq::RedisConnection.create` in drop-in mode: the "pool" a sharded
  # application hands to Sidekiq::Client.via, `sidekiq_options pool:` and
  # `set(pool:)`. It returns a Deckhand::Store (Deckhand talks to Redis only
  # through its stores), one per distinct options. Its `with { |conn| }`
  # yields a redis-client connection: `conn.call("GET", key)`.
  #
  #   SHARD_TWO = Sidekiq::RedisConnection.create(url: ENV["SHARD_TWO_URL"], size: 10)
  #   Sidekiq::Client.via(SHARD_TWO) { ReportJob.perform_async }
  #   class InvoiceJob
  #     include Sidekiq::Job
  #     sidekiq_options pool: SHARD_TWO
  #   end
  module RedisConnection
    # Sidekiq's options Deckhand has no use for: it names no pools, logs no options.
    DROPPED = %i[pool_name logger].freeze

    def self.create(options = {})
      options = options.to_h.transform_keys(&:to_sym).except(*DROPPED)
      options[:timeout] = options.delete(:network_timeout) if options.key?(:network_timeout)
      options[:url] ||= ENV[ENV["REDIS_PROVIDER"] || "REDIS_URL"] unless options.key?(:host) || options.key?(:path)
      options.delete(:url) if options[:url].nil?
      Deckhand::Client::Target.for(options, "Sidekiq::RedisConnection.create").store
    end
  end
end
