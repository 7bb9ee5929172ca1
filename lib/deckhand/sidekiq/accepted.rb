# frozen_string_literal: true

module Deckhand
  module DropIn
    # Sidekiq settings an application may set that have nothing to change on
    # Deckhand's server: the call is taken (an app that boots on Sidekiq
    # boots here), the value kept for code that reads it back, and the first
    # call in a process logs once why it changes nothing.
    #
    #   Accepted.note(logger, :thread_priority, "Deckhand's threads run at Ruby's default priority")
    #   # WARN: Sidekiq's thread_priority is accepted and changes nothing on Deckhand: ...
    module Accepted
      @noted = {}
      @lock = Mutex.new

      def self.note(logger, name, why)
        first = @lock.synchronize { @noted[name] ? false : (@noted[name] = true) }
        logger.warn("Sidekiq's #{name} is accepted and changes nothing on Deckhand: #{why}") if first
        nil
      end

      # Whether `name` was noted in this process (for tests).
      def self.noted?(name) = @lock.synchronize { @noted.key?(name) }
    end
  end
end
