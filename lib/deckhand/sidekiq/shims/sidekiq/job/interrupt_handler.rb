# frozen_string_literal: true

# `require "sidekiq/job/interrupt_handler"` in drop-in mode: the middleware
# for code that runs iterable jobs itself (a Deckhand server resumes them by
# itself, so nothing is added to its chain here).
require "deckhand/sidekiq"
require "deckhand/sidekiq/internals/interrupt_handler"
