# frozen_string_literal: true

require_relative "../store/process_record"
require_relative "../redis_stand_in"

module Deckhand
  class Config
    # With `timestamps: :auto` (the default), the format Deckhand writes follows
    # the fleet sharing its Redis: Float seconds while a Sidekiq process older
    # than 8 is registered there (Sidekiq 7 reads only those: latency and
    # "Created At" go wild on milliseconds), Sidekiq 8's Integer milliseconds
    # otherwise. A server looks on its heartbeat whenever the number of
    # registered processes changed since its last look (the heartbeat reads
    # that number anyway), so it switches at the next beat after a Sidekiq
    # process registers or leaves, and at least every CHECK_EVERY seconds; a
    # client-only process looks on the push that finds its last look older
    # than CHECK_EVERY. Each change is logged once. While something stands in
    # for Redis (RedisStandIn: Deckhand::Testing's fake and inline modes) it
    # does not look.
    #
    #   fleet = FleetTimestamps.new(config)   # logs through config.logger
    #   fleet.format(store)   # => :float while "host:12:ab" runs Sidekiq 7.3.10
    #   fleet.follow(store, 3) # a heartbeat saw 3 processes registered
    class FleetTimestamps
      CHECK_EVERY = 30

      # How often to look, in seconds (tests look more often).
      attr_writer :check_every

      def initialize(config)
        @config = config
        @check_every = CHECK_EVERY
        @format = :millis
        @checked_at = nil
        @process_count = nil
        @lock = Mutex.new
      end

      # The format to write now; looks at the fleet when the last look is stale.
      def format(store)
        refresh(store) if due? && !RedisStandIn.active?
        @format
      end

      def due? = @checked_at.nil? || now - @checked_at >= @check_every

      # A heartbeat's look: at once when the fleet's size changed, else when due.
      def follow(store, process_count)
        changed = process_count != @process_count
        @process_count = process_count
        refresh(store) if changed || due?
      end

      # Reads the process records and switches format if the fleet changed.
      # One thread looks at a time; a Redis failure keeps the current format.
      def refresh(store)
        return unless @lock.try_lock
        begin
          @checked_at = now
          older = older_sidekiqs(store)
          switch(older.empty? ? :millis : :float, older)
        rescue Deckhand::RedisError => e
          @config.logger.debug { "could not read the process records to choose a timestamp format (#{e.message}); still #{@format}" }
        ensure
          @lock.unlock
        end
      end

      # The Sidekiq < 8 processes registered: ["host:12:ab (Sidekiq 7.3.10)", ...].
      def older_sidekiqs(store)
        entries = Store::ProcessRecord.read(store, Store::ProcessRecord.identities(store)).compact
        entries.filter_map do |entry|
          info = entry.info
          next if info["server"] == "deckhand"
          version = info["version"].to_s
          "#{entry.identity} (Sidekiq #{version})" if version.match?(/\A[1-7]\./)
        end
      end

      private

      def switch(format, older)
        return if format == @format
        @format = format
        if format == :float
          @config.logger.info("Sidekiq processes older than 8 share this Redis (#{older.first(3).join(", ")}): " \
            "writing timestamps as Float seconds, as they read them, until they are gone; set timestamps to force a format")
        else
          @config.logger.info("no Sidekiq process older than 8 left in this Redis: writing timestamps as Integer milliseconds again")
        end
      end

      def now = Monotonic.now
    end
  end
end
