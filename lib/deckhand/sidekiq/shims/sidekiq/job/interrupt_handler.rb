# frozen_string_literal: true

# `require "sidekiq/job/interrupt_handler"` in drop-in mode: it requeues an interrupted iterable job run outside a Deckhand server.
require "deckhand/sidekiq"
require "deckhand/sidekiq/internals/interrupt_handler"
