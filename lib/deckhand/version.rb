# frozen_string_literal: true

module Deckhand
  VERSION = "0.1.0"
end
