# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # push_mark.lua: the mark a push written as one transaction leaves in
      # Redis (Store::MarkedPush), queued first in its MULTI. It is sent
      # with its source (EVAL), never by SHA: inside a transaction a
      # NOSCRIPT would fail the mark alone and let the writes run unmarked.
      #
      #   tx.call(*PushMark.command("deckhand:push:k3J9", [["queue:a", "list"], ["queues", "set"]], 600))
      #   # => the EXEC's first reply: "written:" (every write taken), or "written:2" (the second key refused)
      class PushMark < Script # :nodoc:
        lua "push_mark"

        # The EVAL command: `checks` are [key, type] of the keys the push
        # writes; the mark lives `ttl` seconds.
        def self.command(mark, checks, ttl)
          ["EVAL", source, checks.size + 1, mark, *checks.map(&:first), ttl, *checks.map(&:last)]
        end

        # The positions (0-based, in `checks` order) of the keys a mark's
        # value says Redis refused.
        def self.refused(value) = value.delete_prefix(WRITTEN).split(",").map { |i| Integer(i) - 1 }

        # What every mark's value starts with; a check that finds no mark
        # leaves LOST in its place (Store::MarkedPush).
        WRITTEN = "written:"
      end
    end
  end
end
