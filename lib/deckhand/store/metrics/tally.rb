# frozen_string_literal: true

module Deckhand
  class Store
    module Metrics
      # Per-class execution counts and times gathered in memory by a server
      # process and handed to Metrics.flush on each heartbeat: recording a job
      # costs a hash lookup and a few additions under a lock, no Redis.
      #
      #   tally = Tally.new
      #   tally.record("WelcomeJob", 12.5, false)
      #   tally.take   # => {"WelcomeJob" => [1, 0, 12.5, {17 => 1}]}, and starts over
      class Tally
        def initialize
          @lock = Mutex.new
          @classes = {}
        end

        def record(klass, ms, failed)
          bucket = Histogram.bucket(ms)
          @lock.synchronize do
            entry = @classes[klass] ||= [0, 0, 0.0, Hash.new(0)]
            entry[0] += 1
            entry[1] += 1 if failed
            entry[2] += ms
            entry[3][bucket] += 1
          end
        end

        # Returns everything recorded since the last take and starts over.
        def take
          @lock.synchronize do
            taken = @classes
            @classes = {}
            taken
          end
        end

        # Puts back what a failed flush could not write.
        def restore(taken)
          @lock.synchronize do
            taken.each do |klass, (count, failed, ms, histogram)|
              entry = @classes[klass] ||= [0, 0, 0.0, Hash.new(0)]
              entry[0] += count
              entry[1] += failed
              entry[2] += ms
              histogram.each { |bucket, n| entry[3][bucket] += n }
            end
          end
        end

        def empty? = @lock.synchronize { @classes.empty? }
      end
    end
  end
end
