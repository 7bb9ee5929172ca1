# frozen_string_literal: true

# `require "sidekiq/middleware/i18n"` in drop-in mode: the job keeps the locale it was pushed in.
require "deckhand/sidekiq"
require "deckhand/sidekiq/middleware/i18n"

Sidekiq.configure_client do |config|
  config.client_middleware.add Sidekiq::Middleware::I18n::Client
end

Sidekiq.configure_server do |config|
  config.client_middleware.add Sidekiq::Middleware::I18n::Client
  config.server_middleware.add Sidekiq::Middleware::I18n::Server
end
