# frozen_string_literal: true

# `require "sidekiq/fetch"` in drop-in mode: Sidekiq::BasicFetch (it takes no job out of Redis: Deckhand's server fetches).
require "deckhand/sidekiq"
require "deckhand/sidekiq/internals/basic_fetch"
