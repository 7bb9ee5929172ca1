# frozen_string_literal: true

module Deckhand
  module DropIn
    # What Store::Scripts::Settle writes for a job in flight, written
    # straight to the retry, schedule and dead sets for a job that is in no
    # in-flight record (DirectRetry's). Each returns Settle's :written.
    #
    #   DirectOutcomes.new(Deckhand::API.new(config), config.store).retry(nil, at: Time.now.to_f + 30, payload: json)
    class DirectOutcomes
      def initialize(sets, store)
        @sets = sets
        @store = store
      end

      def retry(_place, at:, payload:) = written { @sets.retries.add(payload, at) }

      def reschedule(_place, at:, payload:) = written { @sets.scheduled.add(payload, at) }

      def bury(_place, payload:, now:, timeout:, max_jobs:, unlock: nil)
        written do
          @sets.dead.bury(payload, notify: false, now: now)
          release(unlock)
        end
      end

      def drop(_place, unlock: nil) = written { release(unlock) }

      private

      def written
        yield
        :written
      end

      def release(lock)
        Store::Features::UniqueLocks.release(@store, lock[0], lock[1]) if lock
      end
    end
  end
end
