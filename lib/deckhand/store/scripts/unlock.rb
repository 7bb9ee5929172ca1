# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # unlock.lua: releases unique locks, each only if the given jid holds
      # it (nil: whoever holds it).
      #
      #   Unlock.new(store).call([["unique:ab12...", "b4a5..."]])   # => 1
      class Unlock < Script
        lua "unlock"

        def call(locks)
          return 0 if locks.empty?
          run(locks.map(&:first), locks.map { |_, jid| jid.to_s })
        end
      end
    end
  end
end
