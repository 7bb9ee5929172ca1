# frozen_string_literal: true

module Sidekiq
  # `Sidekiq::Rails` in drop-in mode, defined where Rails is loaded: its
  # Reloader, which initializers set as `config[:reloader]` or call to run
  # code inside the application's reloader, as Sidekiq runs each job.
  # (Deckhand's Railtie wraps each job in the reloader itself.)
  #
  #   Sidekiq::Rails::Reloader.new.call { Report.refresh }
  class Rails
    class Reloader
      def initialize(app = ::Rails.application)
        @app = app
      end

      # Rails 7.1 names the source of the work in its reloader events.
      def call(&)
        source = (::Rails::VERSION::STRING >= "7.1") ? {source: "job.sidekiq"} : {}
        @app.reloader.wrap(**source, &)
      end

      def inspect = "#<#{self.class.name} @app=#{@app.class.name}>"

      def to_hash = {app: @app.class.name}
    end
  end
end
