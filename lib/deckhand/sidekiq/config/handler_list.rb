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
    #   config.error_handlers.delete(handler)
    class HandlerList
      include Enumerable

      # An error handler as Deckhand calls it, (error, context).
      ErrorHandler = Struct.new(:handler, :configuration) do
        # A two-argument handler still runs, with the log line Sidekiq 7 writes
        # for it (Sidekiq 8 calls handlers with three).
        def call(error, context)
          context = context.transform_keys(&:to_sym)
          return handler.call(error, context, configuration) unless arity == 2
          configuration.logger.info { "DEPRECATION: Sidekiq exception handlers now take three arguments, see #{handler}" }
          handler.call(error, context)
        end

        # Parameters counted as Sidekiq counts them: a proc's optional third
        # counts (a proc's arity would leave it out).
        def arity = (handler.respond_to?(:parameters) ? handler : handler.method(:call)).parameters.size
      end

      def initialize(list, configuration, errors:)
        @list = list
        @configuration = configuration
        @errors = errors
      end

      def <<(handler)
        raise ArgumentError, "a handler answers call, got #{handler.inspect}" unless handler.respond_to?(:call)
        @list << (@errors ? ErrorHandler.new(handler, @configuration) : handler)
        self
      end

      alias_method :push, :<<

      # The handlers as they were added.
      def each(&) = @list.map { |entry| entry.is_a?(ErrorHandler) ? entry.handler : entry }.each(&)

      def delete(handler)
        found = @list.find { |entry| entry.equal?(handler) || (entry.is_a?(ErrorHandler) && entry.handler.equal?(handler)) }
        found && @list.delete(found) && handler
      end

      # Removes and returns the last handler added.
      def pop
        entry = @list.pop
        entry.is_a?(ErrorHandler) ? entry.handler : entry
      end

      def size = @list.size

      def clear = @list.clear

      def empty? = @list.empty?
    end
  end
end
