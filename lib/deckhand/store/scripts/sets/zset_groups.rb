# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs zset_groups.lua: counts a stretch of a sorted set by error class
      # and by job class, inside Redis.
      #
      #   ZsetGroups.new(store).call("retry", from: 0, budget: 20_000)
      #   # => [next rank or -1, 2, "Net::ReadTimeout", 25, "RuntimeError", 3, "MailJob", 28]
      class ZsetGroups < Script # :nodoc:
        lua "sets/zset_groups"

        def call(set, from:, budget:) = run([set], [from, budget])
      end
    end
  end
end
