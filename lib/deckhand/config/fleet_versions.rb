# frozen_string_literal: true

require_relative "../store/records/process_record"
require_relative "../redis_stand_in"

module Deckhand
  class Config
    # Which Sidekiq versions share this Redis, read from the process records
    # (each carries its version), and what Deckhand writes for them where
    # Sidekiq's formats differ between versions:
    #
    # - timestamps (with `timestamps: :auto`): Float seconds while a Sidekiq
    #   process older than 8 is registered (Sidekiq 7 reads only those:
    #   latency and "Created At" go wild on milliseconds), Sidekiq 8's
    #   Integer milliseconds otherwise;
    # - the Active Job wrapper class: while Sidekiq processes are registered,
    #   a name every one of them runs. Sidekiq before 7.3.3 knows only
    #   ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper, which 7.3.3 and
    #   8.x still define (8.x as an alias); a fleet of Sidekiq 8 alone gets
    #   Sidekiq::ActiveJob::Wrapper, the name 8.x writes. nil when no Sidekiq
    #   process is registered (the adapter writes its own default);
    # - the layouts of Sidekiq's metrics a server writes beside its own:
    #   7's, 8's, or both when the fleet holds both or no Sidekiq process (a
    #   Sidekiq dashboard served by web processes, which do not register,
    #   shows the work either way).
    #
    # A server looks on its heartbeat whenever the number of registered
    # processes changed since its last look (the heartbeat reads that number
    # anyway), so it switches at the next beat after a Sidekiq process
    # registers or leaves, and at least every CHECK_EVERY seconds; a
    # client-only process looks on the push that finds its last look older
    # than CHECK_EVERY. Each change is logged once. While something stands in
    # for Redis (RedisStandIn: Deckhand::Testing's fake and inline modes) it
    # does not look.
    #
    #   fleet = FleetVersions.new(config)  # reads config.store, logs through config.logger
    #   fleet.timestamps               # => :float while "host:12:ab" runs Sidekiq 7.3.10
    #   fleet.active_job_class         # => "ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper"
    #   fleet.follow(store, 3)         # a heartbeat saw 3 processes registered
    #   fleet.sidekiq_metrics          # => [7] (from the last look)
    class FleetVersions # :nodoc:
      CHECK_EVERY = 30
      SIDEKIQ_7_WRAPPER = "ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper"
      SIDEKIQ_8_WRAPPER = "Sidekiq::ActiveJob::Wrapper"
      BOTH = [7, 8].freeze

      # How often to look, in seconds (tests look more often).
      attr_writer :check_every

      def initialize(config)
        @config = config
        @check_every = CHECK_EVERY
        @older = [].freeze # "identity (Sidekiq version)" of each Sidekiq < 8
        @newer = [].freeze # and of each Sidekiq 8 or later
        @checked_at = nil
        @process_count = nil
        @lock = Mutex.new
      end

      # The timestamp format the fleet reads (timestamps: :auto).
      def timestamps
        look
        @older.empty? ? :millis : :float
      end

      # The Active Job wrapper class every Sidekiq process of the fleet runs,
      # or nil when there is none.
      def active_job_class
        look
        FleetVersions.wrapper_for(@older, @newer)
      end

      # The Sidekiq metrics layouts to write, from the last look (a server's
      # heartbeat keeps it fresh): [7], [8] or [7, 8].
      def sidekiq_metrics
        return BOTH if @older.empty? == @newer.empty?
        @older.empty? ? [8] : [7]
      end

      def due? = @checked_at.nil? || now - @checked_at >= @check_every

      # A heartbeat's look: at once when the fleet's size changed, else when due.
      def follow(store, process_count)
        changed = process_count != @process_count
        @process_count = process_count
        refresh(store) if changed || due?
      end

      # Reads the process records and switches what is written if the fleet
      # changed. One thread looks at a time; a Redis failure keeps the
      # current choice.
      def refresh(store)
        return unless @lock.try_lock
        begin
          @checked_at = now
          older, newer = sidekiqs(store)
          switch(older, newer)
        rescue Deckhand::RedisError => e
          @config.logger.debug { "could not read the process records to follow the Sidekiq versions of the fleet (#{e.message}); writing as before" }
        ensure
          @lock.unlock
        end
      end

      # The Sidekiq processes registered, as [older than 8, 8 or later]:
      # [["host:12:ab (Sidekiq 7.3.10)", ...], [...]].
      def sidekiqs(store)
        entries = Store::Records::ProcessRecord.read(store, Store::Records::ProcessRecord.identities(store)).compact
        entries.each_with_object([[], []]) do |entry, (older, newer)|
          info = entry.info
          next if info["server"] == "deckhand"
          version = info["version"].to_s
          next unless version.match?(/\A\d+\./)
          ((version.to_i < 8) ? older : newer) << "#{entry.identity} (Sidekiq #{version})"
        end
      end

      def self.wrapper_for(older, newer)
        return SIDEKIQ_7_WRAPPER unless older.empty?
        SIDEKIQ_8_WRAPPER unless newer.empty?
      end

      private

      # Asked on every push: the configuration's store (a pid check) only
      # when a look is due.
      def look
        refresh(@config.store) if due? && !RedisStandIn.active?
      end

      def switch(older, newer)
        was_older, was_newer = @older, @newer
        @older, @newer = older.freeze, newer.freeze
        if older.empty? != was_older.empty? && @config.timestamps_setting == :auto
          @config.logger.info(older.empty? ? "no Sidekiq process older than 8 left in this Redis: writing timestamps as Integer milliseconds again" :
            "Sidekiq processes older than 8 share this Redis (#{older.first(3).join(", ")}): writing timestamps as Float seconds, " \
            "as they read them, until they are gone; set timestamps to force a format")
        end
        before = FleetVersions.wrapper_for(was_older, was_newer)
        after = FleetVersions.wrapper_for(older, newer)
        return if before == after
        @config.logger.info(after ? "Sidekiq processes share this Redis (#{(older + newer).first(3).join(", ")}): Active Job jobs are written " \
          "as #{after}, which every one of them runs" : "no Sidekiq process left in this Redis: Active Job jobs are written with the adapter's own wrapper class")
      end

      def now = Monotonic.now
    end
  end
end
