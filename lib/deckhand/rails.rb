# frozen_string_literal: true

require "rails/railtie"
require_relative "../deckhand"
require_relative "lifecycle"
require_relative "cli/config_file"
require_relative "railtie/after_commit"

module Deckhand
  # Rails integration. In config/application.rb, after `require "rails"`:
  #
  #   require "deckhand/rails"
  #
  #   config.active_job.queue_adapter = :deckhand   # Active Job on Deckhand
  #   config.deckhand.push_after_commit = true      # optional, see AfterCommit
  #
  # It reads config/deckhand.yml for the web process's client (Redis, payload
  # limits; the `deckhand` command reads it itself), logs through Rails.logger,
  # runs every job (and the lookup of its class) inside the Rails reloader, makes :deckhand an Active Job
  # adapter and adds the generator `rails g deckhand:job Name`.
  class Railtie < ::Rails::Railtie
    # What the client in a web process takes from config/deckhand.yml.
    CLIENT_SETTINGS = %i[redis timestamps max_payload_bytes push_replicas push_replicas_timeout].freeze

    config.deckhand = ActiveSupport::OrderedOptions.new
    config.deckhand.push_after_commit = false
    config.deckhand.reloader = true

    class << self
      # True in a process started by the `deckhand` command (it says so: Lifecycle.command!).
      def server? = Lifecycle.command?

      # Applies config/deckhand.yml's client settings to `config`.
      def load_config_file(config, path, environment)
        return unless File.exist?(path)
        settings = CLI::ConfigFile.load(path, environment)
        config.redis = Deckhand.default_redis.merge(settings[:redis].transform_keys(&:to_sym)) if settings[:redis]
        config.timestamps = settings[:timestamps] if settings.key?(:timestamps)
        config.max_payload_bytes = settings[:max_payload_bytes] if settings.key?(:max_payload_bytes)
        %i[push_replicas push_replicas_timeout].each { |name| config.public_send(:"#{name}=", settings[name]) if settings.key?(name) }
      end

      # What a Deckhand server in a Rails process needs: jobs inside the
      # reloader, and the application's log lines where Deckhand's go.
      def install(config, app)
        return if config.booted?
        if app.config.deckhand.reloader
          config.executor = app.reloader
          config.reloading = reloading?(app)
        end
        share_logs(config.logger) if server?
      end

      private

      def reloading?(app)
        app.config.respond_to?(:reloading_enabled?) ? app.config.reloading_enabled? : !app.config.cache_classes
      end

      # Rails.logger also writes to Deckhand's output, unless it already goes
      # to the terminal (no line twice).
      def share_logs(logger)
        rails = ::Rails.logger
        return unless rails.respond_to?(:broadcast_to) && logger
        return if ActiveSupport::Logger.logger_outputs_to?(rails, $stdout, $stderr)
        rails.broadcast_to(logger)
      end
    end

    # Registered as this file loads, ahead of Active Job's own hook that looks
    # the adapter up by name.
    ActiveSupport.on_load(:active_job) { require "active_job/queue_adapters/deckhand_adapter" }

    initializer "deckhand.config", after: :initialize_logger do |app|
      unless Railtie.server?
        Railtie.load_config_file(Deckhand.config, app.root.join("config/deckhand.yml").to_s, ::Rails.env)
        Deckhand.config.logger = ::Rails.logger
      end
    end

    config.after_initialize do |app|
      # A server must know the wrapper class before Active Job itself loads.
      require "active_job/queue_adapters/deckhand_adapter" if defined?(::ActiveJob::Railtie)
      Railtie.install(Deckhand.config, app)
      AfterCommit.install if app.config.deckhand.push_after_commit
    end
  end
end
