# frozen_string_literal: true

require "delegate"

module Deckhand
  class Client
    # A configuration pushing to another Redis (Client.via, `pool:`): every
    # setting is the wrapped configuration's (middleware, payload limit,
    # encryption keys, logger) except the store, and what belongs to a store:
    # what its fleet reads (timestamps, Active Job's wrapper class) (and its reliable-push buffer,
    # PushBuffer.for keeps one per configuration object).
    # Pushers (Deckhand::Testing, push-after-commit) get it as the `config` of
    # call(queued, scheduled, config), so a write they defer lands here too.
    #
    #   routed = RoutedConfig.new(Deckhand.config, eu_store)
    #   Deckhand::Client.new(config: routed).push("class" => "Report", "args" => [])  # to eu_store
    #   Deckhand::API.new(routed).stats                                              # read there
    class RoutedConfig < SimpleDelegator # :nodoc:
      attr_reader :store

      def initialize(config, store)
        super(config)
        @store = store
      end

      def timestamps
        format = timestamps_setting
        (format == :auto) ? fleet_versions.timestamps : format
      end

      def fleet_versions = @fleet_versions ||= Config::FleetVersions.new(self)

      def inspect = "#<#{self.class.name} #{@store.location}>"
    end
  end
end
