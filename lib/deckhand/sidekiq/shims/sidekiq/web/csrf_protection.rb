# frozen_string_literal: true

# `require "sidekiq/web/csrf_protection"` in drop-in mode: Sidekiq::Web::CsrfProtection on Deckhand's check.
require "deckhand/sidekiq"
require "deckhand/sidekiq/web/csrf_protection"
