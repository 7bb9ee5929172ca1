# frozen_string_literal: true

module Deckhand
  module Server
    module Chores
      # Takes each queue's depth and latency once a minute for the queue's
      # chart on the dashboard (Store::Records::QueueSamples). Ticked by the
      # heartbeat's thread after each beat, like the eviction watch: no
      # thread of its own, and nothing per job. Every process tries once per
      # minute of Redis' clock to claim that minute (one SET NX); the one
      # that wins reads the queues (as the Queues page does, a few round
      # trips) and writes the samples (one). So a fleet of any size costs Redis one claim per process and
      # one sampling per minute, whichever processes come and go.
      #
      #   sampler = QueueSampler.new(store: store, identity: identity, logger: logger, partitions: config.partitions)
      #   sampler.tick   # after a beat: samples when this process wins the minute
      class QueueSampler
        # partitions: Config::Partitions, whose lists of a queue are sampled as one.
        def initialize(store:, identity:, logger:, partitions: nil)
          @store = store
          @lists = partitions ? ->(queue) { partitions.names(queue) } : ->(queue) { [queue] }
          @identity = identity
          @logger = logger
          @tried = nil
        end

        # Returns the number of queues sampled (nil when another process
        # took the minute, or this one tried it already). now: Redis' time.
        def tick(now = @store.clock.now)
          minute = (now / 60).floor
          return if minute == @tried
          @tried = minute
          return unless Store::Records::QueueSamples.claim(@store, minute, @identity)
          samples = Store::Records::QueueSamples.measure(@store, Time.at(now), lists: @lists)
          Store::Records::QueueSamples.write(@store, minute, samples)
          samples.size
        rescue Deckhand::RedisError => e
          # The heartbeat logs an outage; a lost minute is a gap in a chart.
          @logger.debug("queue samples for this minute not taken: #{e.message}")
          nil
        end
      end
    end
  end
end
