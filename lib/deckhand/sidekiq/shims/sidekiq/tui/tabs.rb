# frozen_string_literal: true

# `require "sidekiq/tui/tabs"` in drop-in mode: Sidekiq 8's terminal dashboard,
# named only (Deckhand's is `deckhand top`).
require "deckhand/sidekiq"
require "deckhand/sidekiq/internals/tui"
