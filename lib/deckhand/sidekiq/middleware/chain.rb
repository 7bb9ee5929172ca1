# frozen_string_literal: true

require_relative "drop_in_chain"

module Sidekiq
  module Middleware
    # `Sidekiq::Middleware::Chain.new` in drop-in mode: a chain of its own,
    # with Sidekiq's methods, run with #invoke; the chains of
    # `config.server_middleware` and `config.client_middleware` answer the
    # same methods and are what a Deckhand server runs.
    #
    #   chain = Sidekiq::Middleware::Chain.new
    #   chain.add Timing
    #   chain.insert_after Timing, Tenant, "acme"
    #   chain.invoke(job, payload, "default") { job.perform(*payload["args"]) }
    class Chain < Deckhand::DropIn::MiddlewareChain
      def initialize(_config = nil)
        super()
        yield self if block_given?
      end
    end
  end
end
