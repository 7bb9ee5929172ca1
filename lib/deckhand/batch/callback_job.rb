# frozen_string_literal: true

module Deckhand
  class Batch
    # The job a batch pushes for each callback: it calls
    # Target.new.on_<event>(status, options). It retries like any job, so a
    # callback that raises runs again; it is pushed once per event.
    class CallbackJob
      include Deckhand::Job

      # Calls the callback: `target`'s `on_<event>(status, options)`.
      def perform(bid, event, target, options)
        unless EVENTS.include?(event)
          raise ArgumentError, "batch #{bid}: unknown callback event #{event.inspect}"
        end
        klass = Object.const_get(target)
        method = :"on_#{event}"
        # Built only when it has the method: a payload naming another class
        # (written into Redis by hand) builds nothing.
        unless klass.is_a?(Class) && klass.public_method_defined?(method)
          raise ArgumentError, "batch #{bid}: the #{event} callback's target #{target} is not a class with a public " \
            "#{method} method; define #{method}(status, options) in it"
        end
        klass.new.public_send(method, Status.new(bid), options)
      end
    end
  end
end
