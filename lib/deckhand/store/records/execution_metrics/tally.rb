# frozen_string_literal: true

module Deckhand
  class Store
    module Records
      module ExecutionMetrics
        # Per-class execution counts and times gathered in memory by a server
        # process and handed to ExecutionMetrics.flush on each heartbeat: recording a job
        # costs a hash lookup and a few additions under a lock, no Redis.
        #
        #   tally = Tally.new
        #   tally.record("WelcomeJob", 12.5, false)
        #   tally.take   # => {"WelcomeJob" => [1, 0, 12.5, {17 => 1}, 0.0, {}]}, and starts over
        class Tally # :nodoc:
          def initialize
            @lock = Mutex.new
            @classes = {}
          end

          # `count` runs of `klass` of `ms` each (a chunk's members share its time).
          def record(klass, ms, failed, count = 1)
            bucket = Records::ExecutionMetrics::Histogram.bucket(ms)
            total = ms * count
            @lock.synchronize do
              entry = @classes[klass] ||= new_entry
              entry[0] += count
              entry[2] += total
              entry[3][bucket] += count
              next unless failed
              # Sidekiq's layout times successful runs only: failures are
              # counted apart (they are rare), so a success costs nothing more.
              entry[1] += count
              entry[4] += total
              entry[5][bucket] += count
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
              taken.each do |klass, (count, failed, ms, histogram, failed_ms, failed_histogram)|
                entry = @classes[klass] ||= new_entry
                entry[0] += count
                entry[1] += failed
                entry[2] += ms
                histogram.each { |bucket, n| entry[3][bucket] += n }
                entry[4] += failed_ms
                failed_histogram.each { |bucket, n| entry[5][bucket] += n }
              end
            end
          end

          def empty? = @lock.synchronize { @classes.empty? }

          private

          # count, failed, total ms, {bucket => n}; then the failures' own ms
          # and {bucket => n}, so SidekiqLayout can tell the successful runs.
          def new_entry = [0, 0, 0.0, Hash.new(0), 0.0, Hash.new(0)]
        end
      end
    end
  end
end
