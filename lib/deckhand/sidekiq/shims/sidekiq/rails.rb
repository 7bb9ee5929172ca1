# frozen_string_literal: true

# `require "sidekiq/rails"` in drop-in mode: Rails, Deckhand's Railtie,
# `queue_adapter = :sidekiq` on Deckhand (once Active Job loads, even when
# drop-in mode loaded before Rails) and Sidekiq::Rails::Reloader.
require "rails"
require "deckhand/sidekiq"
require "deckhand/rails"
require "deckhand/sidekiq/rails_reloader"
ActiveSupport.on_load(:active_job) { require "deckhand/sidekiq/active_job" }
