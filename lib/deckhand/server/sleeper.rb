# frozen_string_literal: true

require_relative "../sleeper"

module Deckhand
  module Server
    # Deckhand::Sleeper (lib/deckhand/sleeper.rb), under the name the server's
    # loops have used.
    Sleeper = Deckhand::Sleeper
  end
end
