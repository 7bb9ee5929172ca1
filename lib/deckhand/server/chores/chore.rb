# frozen_string_literal: true

require_relative "../../component"
require_relative "../outage"

module Deckhand
  module Server
    module Chores
      # A component that does one small thing every `interval` seconds, each
      # wait jittered by up to JITTER either way so a fleet's processes spread
      # their calls out. A Redis failure is logged (Outage, once per outage)
      # and the next interval tries again.
      #
      #   class Tidier < Chore
      #     def initialize(logger) = super("tidy", logger: logger, interval: 30, what: "tidying")
      #     def tick = tidy_once
      #   end
      class Chore < Component
        JITTER = 0.2

        # what: how the log names the work when Redis fails it.
        def initialize(name, logger:, interval:, what:, on_fatal: nil)
          super(name, logger: logger, on_fatal: on_fatal)
          @interval = interval
          @sleeper = Sleeper.new
          @outage = Outage.new(@logger, what)
        end

        private

        def tick = raise(NotImplementedError, "#{self.class} must define tick")

        def wake = @sleeper.stop

        def run
          while @sleeper.sleep(@interval * (1 - JITTER + (2 * JITTER * rand)))
            begin
              tick
              @outage.over
            rescue Deckhand::RedisError => e
              @outage.failed(e) # logged; the next interval tries again
            end
          end
        end
      end
    end
  end
end
