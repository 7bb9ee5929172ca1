# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs zset_scan.lua: a bounded search of a sorted set for entries that
      # contain a text, or every one of several texts (an Array).
      #
      #   ZsetScan.new(store).call("dead", "Timeout", from: 0, limit: 25, budget: 20_000, reverse: true)
      #   # => [next rank or -1, rank, entry, score, rank, entry, score, ...]
      #   ZsetScan.new(store).call("retry", ['"class":"MailJob"', '"error_class":"Net::ReadTimeout"'], from: 0, limit: 25, budget: 20_000)
      class ZsetScan < Script # :nodoc:
        lua "sets/zset_scan", uses: ["zset", "match", "scan"]

        def call(set, text, from:, limit:, budget:, reverse: false)
          first, *more = Array(text)
          run([set], [first, from, limit, budget, reverse ? "rev" : "fwd", *more])
        end
      end
    end
  end
end
