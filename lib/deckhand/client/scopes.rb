# frozen_string_literal: true

module Deckhand
  class Client
    # The blocks that change where pushes on this fiber go: to a collector
    # (Client.collecting, Deckhand::Batch#jobs) or to another Redis
    # (Client.via). Client extends it, so these are Client's class methods.
    #
    #   Deckhand::Client.via(EU_REDIS) { InvoiceJob.perform_async(7) }
    #   Deckhand::Client.collecting(collector) { WelcomeJob.perform_async(1) }  # collector.collect(jobs, ats)
    #   Deckhand::Client.current_config   # => the configuration a push here would use
    module Scopes
      # While the block runs, jobs pushed on this fiber (after client middleware)
      # go to `collector.collect(jobs, ats)` instead of Redis: `jobs` are job
      # Hashes, `ats` nil or their scheduled times (nil where not scheduled). A
      # caller can then write a block's jobs together, or drop them all when the
      # block raises. Deckhand::Batch#jobs is built on it.
      def collecting(collector)
        previous = Thread.current[COLLECTOR]
        Thread.current[COLLECTOR] = collector
        yield
      ensure
        Thread.current[COLLECTOR] = previous
      end

      # While the block runs, jobs pushed on this thread (fiber) go to another
      # Redis: `target` is a Deckhand::Store, a redis-client options Hash or a
      # Redis URL (Client::Target). The innermost block wins; a job's own
      # `set(pool:)` wins over it, and it wins over `deckhand_options pool:`,
      # as in Sidekiq. See docs/sharding.md.
      #
      #   Deckhand::Client.via(EU_REDIS) { InvoiceJob.perform_async(7) }
      def via(target)
        target = Target.for(target)
        previous = Thread.current[VIA]
        Thread.current[VIA] = target
        yield
      ensure
        Thread.current[VIA] = previous if target
      end

      # The Client::Target of the innermost via block on this fiber, or nil.
      def via_target = Thread.current[VIA]

      # `config`, or in a via block that configuration writing to the block's
      # Redis: what a push here would use. Batches made in a via block live there.
      def current_config(config = Deckhand.config)
        target = Thread.current[VIA]
        target ? target.config_for(config) : config
      end
    end
  end
end
