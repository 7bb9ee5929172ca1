# frozen_string_literal: true

# `require "sidekiq/testing"` in drop-in mode: fake mode on.
require "deckhand/sidekiq"
require "deckhand/sidekiq/testing"
Sidekiq::Testing.fake!
