# frozen_string_literal: true

require_relative "priority_pushes"

module Deckhand
  class Store
    module Jobs
      # What the dashboard and the data API read of the jobs waiting with a
      # priority (docs/priority.md): each queue's levels, from its set of
      # levels (Jobs::PriorityPushes), and how many jobs wait in their lists.
      # A queue that never had a priority costs one SMEMBERS of a key that
      # does not exist.
      #
      #   PriorityLevels.levels(store, %w[default mail])  # => {"default" => [-5, 3], "mail" => []}
      #   PriorityLevels.waiting(store, %w[default mail]) # => {"default" => 12, "mail" => 0}
      #   PriorityLevels.next_of(store, "default", raw)   # => the payload that runs next
      #   PriorityLevels.clear(store, "default")          # the jobs of its levels deleted
      #   PriorityLevels.run_order(store, ["default"])    # => [["default", -5], ["default", nil], ["default", 3]]
      module PriorityLevels # :nodoc:
        module_function

        def levels(store, names)
          return {} if names.empty?
          store.layout.place(names)
          members = store.pipelined { |pipe| names.each { |name| pipe.call("SMEMBERS", store.layout.priorities(name)) } }
          names.zip(members).to_h { |name, found| [name, PriorityPushes.parse(found)] }
        end

        # queue => the jobs waiting in its levels' lists.
        def waiting(store, names)
          found = levels(store, names)
          return found.transform_values { 0 } if found.each_value.all?(&:empty?)
          sizes = store.pipelined do |pipe|
            found.each { |name, levels| levels.each { |level| pipe.call("LLEN", store.layout.priority(name, level)) } }
          end
          found.transform_values { |levels| sizes.shift(levels.size).sum }
        end

        # The job of the queue that runs next, given `own`, the next of its
        # own list (or nil): the next of its levels below 0, else `own`, else
        # the next of its levels above 0.
        def next_of(store, name, own)
          levels = levels(store, [name]).fetch(name)
          return own if levels.empty?
          firsts = store.pipelined { |pipe| levels.each { |level| pipe.call("LINDEX", store.layout.priority(name, level), -1) } }
          urgent, later = levels.zip(firsts).partition { |level, _| level.negative? }
          urgent.filter_map(&:last).first || own || later.filter_map(&:last).first
        end

        # [list, level] of each list of a queue (its own, or a partitioned
        # queue's partitions in their order) and of each of their levels, in
        # the order a fetch takes them (Server::Fetch::Sources): every level
        # below 0, lowest first, each list's in turn; the lists themselves
        # (level nil); the levels above 0.
        def run_order(store, lists)
          found = levels(store, lists)
          below, above = found.values.flatten.uniq.sort.partition(&:negative?)
          at = ->(level) { lists.select { |list| found.fetch(list).include?(level) }.map { |list| [list, level] } }
          below.flat_map(&at) + lists.map { |list| [list, nil] } + above.flat_map(&at)
        end

        # The length of each [list, level] (level nil: the list itself).
        def lengths(store, pairs)
          store.pipelined { |pipe| pairs.each { |name, level| pipe.call("LLEN", list(store.layout, name, level)) } }
        end

        # The key of the queue's list at `level` (nil: its own list).
        def list(keys, name, level) = level ? keys.priority(name, level) : keys.queue(name)

        # Deletes the jobs waiting in the queue's levels. The levels stay
        # named: a process that pushes to one later finds it fetched.
        def clear(store, name)
          levels = levels(store, [name]).fetch(name)
          store.call("UNLINK", *levels.map { |level| store.layout.priority(name, level) }) unless levels.empty?
        end
      end
    end
  end
end
