# frozen_string_literal: true

module Deckhand
  module DropIn
    # What Sidekiq Enterprise's `config.periodic { |mgr| ... }` yields in
    # drop-in mode: each `mgr.register` is a Deckhand periodic entry
    # (docs/periodic.md). The job options given (retry:, ...) go with each
    # tick's job, over the class's own.
    #
    #   Sidekiq.configure_server do |config|
    #     config.periodic do |mgr|
    #       mgr.tz = "Europe/Paris"
    #       mgr.register("0 2 * * *", "NightlyJob", retry: 2, queue: "reports")
    #       mgr.register("*/5 * * * *", PingJob, args: ["ping"])
    #     end
    #   end
    class PeriodicManager
      def initialize(periodic)
        @periodic = periodic
      end

      # Sidekiq Enterprise's signature: register(cron, klass, options = {}).
      def register(cron, klass, options = {})
        options = options.transform_keys(&:to_s)
        @periodic.register(cron, klass, queue: options.delete("queue"), args: options.delete("args") || [],
          tz: options.delete("tz")&.then { |zone| zone_name(zone) }, name: options.delete("name"), options: options)
      end

      # A zone name, or an ActiveSupport::TimeZone / TZInfo zone (as Sidekiq
      # Enterprise takes); entries registered after it use it.
      def tz=(zone)
        @periodic.timezone = zone_name(zone)
      end

      def tz = @periodic.timezone

      private

      def zone_name(zone)
        return zone.tzinfo.name if zone.respond_to?(:tzinfo)
        zone.respond_to?(:identifier) ? zone.identifier : zone.to_s
      end
    end
  end
end
