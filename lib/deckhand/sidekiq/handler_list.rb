# frozen_string_literal: true

module Deckhand
  module DropIn
    # `config.error_handlers` and `config.death_handlers` in drop-in mode:
    # appending adds the handler to Deckhand's list, called the way Sidekiq 7
    # calls it: error handlers get the context with Symbol keys (context[:job])
    # and the configuration as a third argument unless they take two.
    #
    #   config.error_handlers << ->(error, context, config) { Bugs.notify(error, context) }
    #   config.death_handlers << ->(job, error) { Alerts.dead(job["class"], error) }
    class HandlerList
      def initialize(list, configuration, errors:)
        @list = list
        @configuration = configuration
        @errors = errors
      end

      def <<(handler)
        raise ArgumentError, "a handler answers call, got #{handler.inspect}" unless handler.respond_to?(:call)
        @list << (@errors ? error_handler(handler) : handler)
        self
      end

      alias_method :push, :<<

      def size = @list.size

      def clear = @list.clear

      def empty? = @list.empty?

      private

      def error_handler(handler)
        arity = handler.respond_to?(:arity) ? handler.arity : handler.method(:call).arity
        configuration = @configuration
        if arity == 2
          ->(error, context) { handler.call(error, context.transform_keys(&:to_sym)) }
        else
          ->(error, context) { handler.call(error, context.transform_keys(&:to_sym), configuration) }
        end
      end
    end
  end
end
