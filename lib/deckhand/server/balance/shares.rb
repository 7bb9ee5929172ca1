# frozen_string_literal: true

module Deckhand
  module Server
    module Balance
      # Splits a fetch's limit between its sources by their backlog: the
      # whole limit goes out, each source at least nothing, the units left
      # by rounding to the biggest backlogs. A source without backlog gets
      # none of the split (the fetch's leftover still reaches it, in order).
      #
      #   Shares.split(20, [900, 300, 0])  # => [15, 5, 0]
      module Shares
        module_function

        def split(limit, backlogs)
          total = backlogs.sum
          return backlogs.map { limit } if total.zero?
          shares = backlogs.map { |n| limit * n / total }
          order = backlogs.each_index.sort_by { |i| -backlogs[i] }
          (limit - shares.sum).times { |k| shares[order[k % order.size]] += 1 }
          shares
        end
      end
    end
  end
end
