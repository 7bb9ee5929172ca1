# frozen_string_literal: true

require_relative "held_classes"
require_relative "cancellations"

module Deckhand
  class Store
    module Jobs
      # Finding the jobs held aside while their class is paused
      # (Jobs::HeldClasses), for a cancel by jid and the dashboard's Find: a
      # held job waits in a sorted set per queue and class, where neither
      # the queue's list nor the schedule, retry and dead sets would show it.
      # Only the held sets of the classes paused now are read, those that
      # hold jobs, in pages: a resumed class's are on their way back to
      # their queues.
      #
      #   HeldSearch.sets(store, ["default"])            # => [["default", "ReportJob", "deckhand:held:default:ReportJob"]]
      #   HeldSearch.find(store, ["default"], jid)       # => ["default", "ReportJob", key, raw] or nil
      #   HeldSearch.scan(store, key, "98431", budget: 10_000)  # => [[raw, ...], true (read to its end)]
      module HeldSearch # :nodoc:
        # Entries read per round trip of a scan.
        PAGE = 1_000

        module_function

        # [list, class, key] of each held set of a paused class in `lists`
        # (queues, and partitions' lists) that holds jobs.
        def sets(store, lists)
          return [] if lists.empty?
          HeldClasses.paused(store).flat_map do |name|
            HeldClasses.held(store, name, lists).keys.map { |list| [list, name, store.layout.held(list, name)] }
          end
        end

        # [list, class, key, raw] of the held job `jid`, or nil.
        def find(store, lists, jid)
          sets(store, lists).each do |list, name, key|
            raw = Cancellations.find_in_set(store, key, jid) and return [list, name, key, raw]
          end
          nil
        end

        # The entries of the held set `key` that contain `text`, reading at
        # most `budget` entries; and whether it read the set to its end.
        def scan(store, key, text, budget:)
          found = []
          from = 0
          while from < budget
            asked = [PAGE, budget - from].min
            page = store.call("ZRANGE", key, from, from + asked - 1)
            found.concat(page.select { |raw| raw.include?(text) })
            return [found, true] if page.size < asked
            from += asked
          end
          [found, store.call("ZCARD", key) <= budget]
        end
      end
    end
  end
end
