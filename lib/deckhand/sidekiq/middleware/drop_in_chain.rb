# frozen_string_literal: true

module Deckhand
  module DropIn
    # Sidekiq's middleware chain methods over a Deckhand::Middleware::Chain.
    # Server middleware is called as Sidekiq calls it, (job, payload, queue);
    # client middleware as (class name, payload, queue, store).
    #
    #   config.server_middleware { |chain| chain.add Audit, level: :info }
    #   chain.insert_before Audit, Tenant
    #   chain.entries.map(&:klass)   # => [Tenant, Audit]
    class MiddlewareChain
      include Enumerable

      def initialize(chain = Middleware::Chain.new)
        @chain = chain
      end

      def add(klass, *args, **kwargs) = @chain.add(klass, *args, **kwargs)

      def prepend(klass, *args, **kwargs) = @chain.prepend(klass, *args, **kwargs)

      def insert_before(existing, klass, *args, **kwargs) = @chain.insert_before(existing, klass, *args, **kwargs)

      def insert_after(existing, klass, *args, **kwargs) = @chain.insert_after(existing, klass, *args, **kwargs)

      def remove(klass) = @chain.remove(klass)

      def clear = @chain.clear

      def exists?(klass) = @chain.include?(klass)

      alias_method :include?, :exists?

      def empty? = @chain.empty?

      # The entries in calling order: each has klass (and args, kwargs).
      def entries = @chain.entries

      def each(&) = entries.each(&)

      def size = @chain.size

      # Runs the block inside every middleware (what a server or the testing
      # modes do around a job or push).
      def invoke(*args, &) = @chain.invoke(*args, &)

      # New middleware instances, in calling order.
      def retrieve = entries.map(&:build)
    end
  end
end
