# frozen_string_literal: true

module Deckhand
  class API
    # What the dashboard shows about Redis, from one INFO call.
    #
    #   info = api.redis_info
    #   info.version        # => "7.0.15"
    #   info["used_memory_human"]
    class RedisInfo
      # The INFO fields the dashboard shows.
      SHOWN = %w[redis_version uptime_in_days connected_clients used_memory_human used_memory_peak_human
        maxmemory_policy].freeze

      attr_reader :location

      def initialize(config)
        store = config.store
        @location = store.location
        @fields = Store::Connection::Info.fields(store).slice(*SHOWN)
      end

      # Redis' version ("7.0.15").
      def version = @fields["redis_version"]

      # One INFO field, as Redis wrote it.
      def [](name) = @fields[name]

      # The fields as a Hash.
      def to_h = @fields.dup
    end
  end
end
