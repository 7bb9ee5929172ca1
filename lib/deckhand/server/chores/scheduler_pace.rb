# frozen_string_literal: true

module Deckhand
  module Server
    module Chores
      # How long a scheduler waits between two polls, so the fleet polls Redis
      # about as often as one process would: on average scheduler_interval
      # times the live processes, or scheduler_poll_average whatever their
      # number when it is set; each wait drawn at random from half to one and
      # a half of that average, so the processes do not poll together.
      #
      #   pace = SchedulerPace.new(config)          # scheduler_interval 2.0
      #   pace.average(5)                           # => 10.0
      #   pace.wait(5)                              # => 5.0 to 15.0
      #   SchedulerPace.new(config, random: Random.new(42)).wait(5)   # the same draw each time
      class SchedulerPace
        attr_writer :random

        def initialize(config, random: Random.new)
          @config = config
          @random = random
        end

        def average(process_count) = @config.scheduler_poll_average || @config.scheduler_interval * [process_count, 1].max

        def wait(process_count) = average(process_count) * (0.5 + @random.rand)
      end
    end
  end
end
