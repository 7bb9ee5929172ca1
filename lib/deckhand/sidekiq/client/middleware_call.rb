# frozen_string_literal: true

module Deckhand
  module DropIn
    # How drop-in mode calls client middleware, on every push (Sidekiq::Client,
    # perform_async, Active Job, batches): as Sidekiq 7 does, with the class
    # as the push named it (a Class or a String), the job, its queue, and the
    # Redis pool the job goes to, whose `with { |conn| ... }` reaches the
    # Redis of a Client.via block. Deckhand::Client.middleware_call.
    #
    #   Deckhand::Client.middleware_call = ClientMiddlewareCall
    #   ClientMiddlewareCall.call(HardJob, job, config)  # => [HardJob, job, "default", pool]
    module ClientMiddlewareCall
      def self.call(given, job, config) = [given || job["class"], job, job["queue"], pool_for(config)]

      # The configuration's own pool (Sidekiq::Config#redis_pool, to the same
      # Redis as its store), or the pool over the store a push is routed to.
      def self.pool_for(config)
        return RedisPool.for(config.store) unless config.equal?(Deckhand.config)
        Sidekiq.default_configuration.redis_pool
      end
    end
  end
end
