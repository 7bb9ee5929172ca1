# frozen_string_literal: true

# `require "sidekiq/testing/inline"` in drop-in mode: testing, in inline mode.
require "deckhand/sidekiq"
require "deckhand/sidekiq/testing"
Sidekiq::Testing.inline!
