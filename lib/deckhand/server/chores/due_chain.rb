# frozen_string_literal: true

module Deckhand
  module Server
    module Chores
      # The process's client middleware, run on a due scheduled job or retry
      # before the scheduler moves it to its queue, as Sidekiq's poller runs
      # it by pushing each due job again: a middleware sees the job once
      # more (a status writer marks a retry queued), may change it, or may
      # stop it, and then the job is gone, as the middleware decided. Called
      # as a push calls it (Client.middleware_call in drop-in mode).
      #
      #   chain = DueChain.new(config, logger)
      #   chain.call(job) # => the job to write, nil when a middleware stopped it,
      #                   #    :leave when one raised (it stays in its set)
      class DueChain
        def initialize(config, logger)
          @config = config
          @logger = logger
        end

        # Read at each poll: drop-in mode's poller may be built before the
        # application adds its middleware.
        def empty? = @config.client_middleware.empty?

        def call(job)
          pushed = nil
          @config.client_middleware.invoke(*arguments(job)) { pushed = job }
          pushed
        rescue => e
          # Leaving it where it is keeps the job: a middleware that failed
          # on a passing outage lets it through at a later poll.
          @logger.error("client middleware raised #{e.class} (#{e.message.to_s.lines.first.to_s.chomp[0, 200]}) on the due #{job["class"]} " \
            "#{job["jid"]}: it stays scheduled and is tried again at the next poll")
          :leave
        end

        private

        def arguments(job)
          call = Client.middleware_call
          call ? call.call(job["class"], job, @config) : [job["class"], job, job["queue"], @config.store]
        end
      end
    end
  end
end
