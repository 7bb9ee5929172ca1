# frozen_string_literal: true

module Deckhand
  VERSION = "0.2.0"
end
