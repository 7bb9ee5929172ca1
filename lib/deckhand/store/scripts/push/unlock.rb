# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # unlock.lua: releases unique locks, each only if the given jid holds
      # it (nil: whoever holds it).
      #
      #   Unlock.new(store).call([["unique:ab12...", "b4a5..."]])   # => 1
      class Unlock < Script # :nodoc:
        lua "push/unlock"

        def call(locks)
          return 0 if locks.empty?
          run(locks.map(&:first), locks.map { |_, jid| jid.to_s })
        end

        # The same, one call per lock, pipelined: locks in different slots
        # of a Redis Cluster. Returns how many were released.
        def call_each(locks) = run_pipelined(locks.map { |key, jid| [[key], [jid.to_s]] }).sum
      end
    end
  end
end
