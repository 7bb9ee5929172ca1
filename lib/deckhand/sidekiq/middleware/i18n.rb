# frozen_string_literal: true

require "i18n"

module Sidekiq
  module Middleware
    # The locale of the code that pushed a job, in force while it runs:
    # Sidekiq's I18n middleware in drop-in mode, with its "locale" job key,
    # so jobs pushed by either run on either. `require
    # "sidekiq/middleware/i18n"` adds both to the default configuration.
    #
    #   I18n.with_locale(:fr) { WelcomeMailJob.perform_async(user.id) }   # runs with I18n.locale == :fr
    module I18n
      # Client middleware: the current locale goes with the job, unless it has one.
      class Client
        include Sidekiq::ClientMiddleware

        def call(_job_class, job, _queue, _store)
          job["locale"] ||= ::I18n.locale
          yield
        end
      end

      # Server middleware: the job runs in its locale (the default without one).
      class Server
        include Sidekiq::ServerMiddleware

        def call(_job, payload, _queue, &)
          ::I18n.with_locale(payload.fetch("locale", ::I18n.default_locale), &)
        end
      end
    end
  end
end
