# frozen_string_literal: true

module Deckhand
  module Server
    # Process-wide notices of what the reaper did (jobs recovered from dead
    # processes, poison pills buried), for the metrics exporters. Nothing is
    # done when nobody listens.
    #
    #   listener = ->(name, count) { puts "#{name}: #{count}" }
    #   Events.subscribe(listener)
    #   Events.emit(:recovered, 3)   # prints "recovered: 3"
    #   Events.unsubscribe(listener)
    module Events
      @subscribers = [].freeze
      @lock = Mutex.new

      class << self
        def subscribe(listener) = @lock.synchronize { @subscribers = [*@subscribers, listener].freeze }

        def unsubscribe(listener) = @lock.synchronize { @subscribers = (@subscribers - [listener]).freeze }

        def emit(name, count = 1)
          @subscribers.each do |listener|
            listener.call(name, count)
          rescue => e
            warn("deckhand: an event listener raised #{e.class}: #{e.message}")
          end
        end
      end
    end
  end
end
