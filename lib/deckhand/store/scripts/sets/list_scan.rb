# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs list_scan.lua: a bounded search of a queue's list, in the order
      # its jobs will run, for entries that contain a text. Returns
      # [[position, raw], ...] (position 0 runs next) and the position to
      # resume from, nil at the end of the list.
      #
      #   found, resume_at = ListScan.new(store).call("default", "98431", from: 0, limit: 25, budget: 10_000)
      #   found      # => [[0, "{\"class\":\"Receipt\",\"args\":[98431],...}"], [17, "..."]]
      #   ListScan.new(store).call("default", "98431", from: 0, limit: 25, budget: 10_000, level: -5)   # the list of its priority level -5
      class ListScan < Script # :nodoc:
        lua "sets/list_scan", uses: ["match", "scan"]

        def call(queue, text, from:, limit:, budget:, level: nil)
          next_position, *flat = run([level ? keys.priority(queue, level) : keys.queue(queue)], [text, from, limit, budget])
          [flat.each_slice(2).to_a, (next_position == -1) ? nil : next_position]
        end
      end
    end
  end
end
