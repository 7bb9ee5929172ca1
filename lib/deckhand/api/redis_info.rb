# frozen_string_literal: true

module Deckhand
  class API
    # What the dashboard shows about Redis, from one INFO call.
    #
    #   info = api.redis_info
    #   info.version        # => "7.0.15"
    #   info["used_memory_human"]
    class RedisInfo
      SHOWN = %w[redis_version uptime_in_days connected_clients used_memory_human used_memory_peak_human
        maxmemory_policy].freeze

      attr_reader :location

      def initialize(config)
        store = config.store
        @location = store.location
        @fields = Store::Connection::Info.fields(store).slice(*SHOWN)
      end

      def version = @fields["redis_version"]

      def [](name) = @fields[name]

      def to_h = @fields.dup
    end
  end
end
