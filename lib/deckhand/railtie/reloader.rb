# frozen_string_literal: true

module Deckhand
  class Railtie < ::Rails::Railtie
    # Server middleware that runs each job inside the Rails reloader (which
    # includes the executor): code reloads between jobs in development,
    # database connections go back to the pool, query caches are cleared, as
    # they do around a web request.
    class Reloader
      def initialize(app)
        @app = app
      end

      def call(_job, _payload, _queue, &)
        @app.reloader.wrap(&)
      end
    end
  end
end
