# frozen_string_literal: true

# `require "sidekiq/job/interrupt_handler"` in drop-in mode: named only (Deckhand resumes iterable jobs by itself).
require "deckhand/sidekiq"
require "deckhand/sidekiq/internals/interrupt_handler"
