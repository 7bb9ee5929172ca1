# frozen_string_literal: true

require_relative "../../script"

module Deckhand
  class Store
    module Scripts
      # What the scripts that read numbers from the shards of a sorted set
      # share (zset_scores.lua, zset_window.lua, zset_counts.lua): one call
      # per set (cluster mode's shards, each in its own slot), pipelined,
      # with the order ranks count in ("1": from the highest score) as
      # ARGV[1] and the script's own arguments after it; each answers one
      # string of numbers separated by spaces, which a read of hundreds
      # sends far more cheaply than hundreds of replies. Each subclass names
      # its script, its arguments and how it reads one number.
      #
      #   class ZsetCounts < ZsetNumbers
      #     lua "sets/zset_counts"
      #     private
      #     def arguments(bounds) = [bounds.join(" ")]
      #     def number(count) = count.to_i
      #   end
      #   ZsetCounts.new(store).call_each([["{queue:mail}:retry", ["1000"]]], reverse: false)   # => [[120]]
      class ZsetNumbers < Script # :nodoc:
        # sets: [[set, the script's own arguments...], ...]; one list of
        # numbers per set.
        def call_each(sets, reverse:)
          flag = reverse ? "1" : "0"
          run_pipelined(sets.map { |set, *rest| [[set], [flag, *arguments(*rest)]] })
            .map { |reply| reply.split.map { |word| number(word) } }
        end
      end
    end
  end
end
