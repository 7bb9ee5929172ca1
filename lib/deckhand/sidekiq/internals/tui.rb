# frozen_string_literal: true

require_relative "server_internal"

module Sidekiq
  # Sidekiq 8's terminal dashboard (`sidekiq tui`, on ratatui_ruby), named
  # in drop-in mode so that code requiring its files loads: its tabs refuse
  # to be built, saying what Deckhand has instead, a live terminal view of
  # the same Redis (`deckhand top`).
  #
  #   Sidekiq::TUI::BaseTab.new(parent)   # => Deckhand::DropIn::Unsupported
  class TUI
    HINT = "Deckhand's terminal dashboard is `deckhand top` (docs/operations.md)"

    # The keys Sidekiq's dashboard answers to, which Deckhand's has its own of.
    module Controls
      GLOBAL = [].freeze
    end

    class BaseTab
      extend Deckhand::DropIn::ServerInternal
      include Controls

      unsupported HINT
    end
  end
end
