# frozen_string_literal: true

module Deckhand
  module Server
    module Fetch
      # Unstarted jobs back to the front of their queues in one call
      # (store/scripts/fetch/requeue.lua: each marked settled in its lot, or taken
      # out of its landing list, in the same step), then each yielded to be
      # counted settled. When Redis fails they stay in the in-flight record,
      # for the shutdown's hand-back of everything (or a reaper) to return.
      # Both buffers, Fetch::Buffer and Balance::CappedBuffer, hand back this way.
      #
      #   HandBack.call(requeue, logger, units) { |unit| ledger.done(unit) }
      module HandBack
        def self.call(requeue, logger, units)
          return if units.empty?
          landed, taken = units.partition { |unit| unit.lot.landing? }
          requeue.some(taken.map { |unit| [unit.lot.index, unit.lot.id, unit.position] },
            landed: landed.map { |unit| [unit.lot.index, unit.payload] })
          units.each { |unit| yield unit }
        rescue Deckhand::RedisError => e
          logger.warn("could not hand back #{units.size} unstarted jobs (#{e.message}); they stay in-flight")
        end
      end
    end
  end
end
