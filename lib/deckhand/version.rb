# frozen_string_literal: true

module Deckhand
  # Deckhand's version (docs/releases.md says what its numbers promise).
  VERSION = "0.2.0"
end
