# frozen_string_literal: true

module Deckhand
  class Batch
    # The job a batch pushes for each callback: it calls
    # Target.new.on_<event>(status, options). It retries like any job, so a
    # callback that raises runs again; it is pushed once per event.
    class CallbackJob
      include Deckhand::Job

      def perform(bid, event, target, options)
        unless EVENTS.include?(event)
          raise ArgumentError, "batch #{bid}: unknown callback event #{event.inspect}"
        end
        Object.const_get(target).new.public_send(:"on_#{event}", Status.new(bid), options)
      end
    end
  end
end
