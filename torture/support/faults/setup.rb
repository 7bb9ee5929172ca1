# frozen_string_literal: true

module Torture
  module Faults
    # What the drill's servers run besides the default queue, so that the
    # faults reach the keys of each feature while it is busy: a throttled
    # queue, a fair queue with a few tenants, a concurrent limiter (in
    # LimitedJob) and a periodic entry ticking every second. The servers
    # and the pushing client read the same names from here.
    #
    #   config = Deckhand::Config.new(redis: {url: url}, queues: Setup::QUEUES)
    #   Setup.apply(config)   # the throttle, the fair queue, the periodic entry
    module Setup
      THROTTLED = "faults-throttled"
      FAIR = "faults-fair"
      TENANTS = %w[acme globex initech].freeze
      LIMITER = "faults-drill"
      TICK = "faults-tick"
      # Weighted, so that a busy default queue never starves the others.
      QUEUES = ["default,3", "#{THROTTLED},1", "#{FAIR},1"].freeze
      # At most two of the throttled queue's jobs at once, fleet-wide: the
      # stream pushes them three at a time, so the third waits in its queue.
      THROTTLE = {THROTTLED => {concurrency: 2}}.freeze
      FAIR_QUEUES = {FAIR => {}}.freeze
      # The priorities the stream pushes jobs of the default queue at.
      LEVELS = {"urgent" => -3, "later" => 4}.freeze

      module_function

      # The servers' settings (the client needs only FAIR_QUEUES).
      def apply(config)
        config.throttle = THROTTLE
        config.fair_queues = FAIR_QUEUES
        config.periodic { |cron| cron.register("* * * * * *", "Torture::Faults::TickJob", name: TICK) }
        config
      end
    end
  end
end
