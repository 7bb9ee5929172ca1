# frozen_string_literal: true

module Deckhand
  module DropIn
    # Sidekiq's middleware chain methods over a Deckhand::Middleware::Chain.
    # Server middleware is called as Sidekiq calls it, (job, payload, queue);
    # client middleware as (class name, payload, queue, store).
    #
    #   config.server_middleware { |chain| chain.add Audit, level: :info }
    class MiddlewareChain
      def initialize(chain)
        @chain = chain
      end

      def add(klass, *args, **kwargs) = @chain.add(klass, *args, **kwargs)

      def prepend(klass, *args, **kwargs) = @chain.prepend(klass, *args, **kwargs)

      def remove(klass) = @chain.remove(klass)

      def exists?(klass) = @chain.include?(klass)

      alias_method :include?, :exists?

      def empty? = @chain.empty?

      def insert_before(_old, klass, *)
        raise Unsupported.new("middleware chain insert_before", "use add or prepend (adding #{klass})")
      end

      def insert_after(_old, klass, *)
        raise Unsupported.new("middleware chain insert_after", "use add or prepend (adding #{klass})")
      end
    end
  end
end
