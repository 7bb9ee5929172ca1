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
        #   tally.record("WelcomeJob", 3.0, true)
        #   tally.record_error("Net::ReadTimeout")
        #   tally.take_errors   # => {"Net::ReadTimeout" => 1} (Store::Records::ErrorMetrics)
        class Tally # :nodoc:
          # Error classes told apart between two takes; more (names made up
          # at run time) count as OTHER, so a flush stays small.
          MAX_ERRORS = 100
          OTHER = "(other)"

          def initialize
            @lock = Mutex.new
            @classes = {}
            @errors = Hash.new(0)
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

          # `count` failures of error class `error`: called on the failure
          # path beside #record, so a success costs nothing more.
          def record_error(error, count = 1)
            @lock.synchronize { count_error(error, count) }
          end

          # The failures per error class since the last take; starts over.
          def take_errors
            @lock.synchronize do
              taken = @errors
              @errors = Hash.new(0)
              taken
            end
          end

          # Puts back what a failed flush could not write.
          def restore_errors(taken)
            @lock.synchronize { taken.each { |error, n| count_error(error, n) } }
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

          def count_error(error, count)
            error = OTHER unless @errors.key?(error) || @errors.size < MAX_ERRORS
            @errors[error] += count
          end

          # count, failed, total ms, {bucket => n}; then the failures' own ms
          # and {bucket => n}, so SidekiqLayout can tell the successful runs.
          def new_entry = [0, 0, 0.0, Hash.new(0), 0.0, Hash.new(0)]
        end
      end
    end
  end
end
