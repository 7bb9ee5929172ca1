# frozen_string_literal: true

require "json"
require_relative "component"
require_relative "quarantine"

module Deckhand
  module Server
    # Gives the jobs of dead processes back to the living, with no restart
    # needed. Every server process runs one; a short Redis lock lets one act at
    # a time. A process is dead when its heartbeat record (`<identity>`, TTL
    # config.heartbeat_ttl) has expired while it still owns an in-flight record
    # (`deckhand:owners`). Its unsettled jobs go back to the front of their
    # queues in one atomic step (store/scripts/recover.lua), counted per jid; a
    # job counted config.max_recoveries times is a poison pill and goes to the
    # dead set.
    #
    #   reaper = Deckhand::Server::Reaper.new(config: config, store: config.store, identity: id)
    #   reaper.start   # a pass every config.reaper_interval seconds
    #   reaper.reap    # one pass now; returns the number of processes recovered
    #   reaper.stop
    #
    # Bound: a SIGKILLed process's jobs are back in their queues at most
    # heartbeat_ttl + reaper_interval * 1.2 seconds after its last heartbeat
    # (defaults 40 + 6: under 60 s).
    class Reaper < Component
      COUNTER_TTL = 24 * 60 * 60
      JITTER = 0.2

      def initialize(config:, store:, identity:, on_fatal: nil)
        super("reaper", logger: config.logger, on_fatal: on_fatal)
        @config = config
        @store = store
        @identity = identity
        @quarantine = Quarantine.new(config: config, store: store)
        @sleeper = Sleeper.new
        @owner = {"queues" => config.all_capsules.flat_map(&:queues).uniq, "hostname" => Identity.hostname,
                  "pid" => ::Process.pid, "started_at" => Time.now.to_f}
        @outage = Outage.new(@logger, "reaper")
        check_timing!
      end

      # Records this process as the owner of its in-flight jobs (no TTL): how its
      # jobs are found again if it dies. Called before the first fetch; raises
      # when Redis cannot be reached.
      def register = Store::Owners.register(@store, @identity, @owner)

      # One pass, if this process wins the lock. Returns how many dead processes
      # it recovered.
      def reap
        return 0 unless Store::Owners.lock(@store, @identity, [(@config.reaper_interval * 800).round, 50].max)
        dead = dead_owners(Store::Owners.all(@store))
        dead = [] if dead.any? && redis_just_started?
        dead.each { |identity, owner| recover(identity, owner) }
        @quarantine.bury_all(Store::Queues.names(@store))
        dead.size
      end

      private

      def wake = @sleeper.stop

      def run
        while @sleeper.sleep(@config.reaper_interval * (1 - JITTER + (2 * JITTER * rand)))
          begin
            # The owner record must name this process as long as it may hold
            # jobs: if it was ever taken for dead (a pause longer than the
            # heartbeat TTL) and recovered, the record is gone.
            register
            reap
            @outage.over
          rescue Deckhand::RedisError => e
            @sleeper.sleep(@outage.failed(e))
          end
        end
      end

      def dead_owners(owners)
        candidates = owners.reject { |identity, _| identity == @identity }
        alive = Store::Owners.alive(@store, candidates.keys)
        candidates.to_a.zip(alive).filter_map { |pair, live| pair unless live }
      end

      # Right after Redis restarts every process record may have expired while
      # it was down; give live processes one TTL to beat again before judging.
      def redis_just_started?
        uptime = @store.uptime
        uptime && uptime < @config.heartbeat_ttl
      end

      def recover(identity, owner)
        queues = Array(owner["queues"]).map(&:to_s)
        recovered, counted, poisoned = Store::Scripts::Recover.new(@store).call(identity: identity, queues: queues,
          limit: @config.max_recoveries, ttl: COUNTER_TTL)
        return if recovered.negative?
        @logger.warn("process #{identity} stopped beating: recovered #{recovered} of its jobs to their queues " \
          "(#{counted} counted as recoveries, #{poisoned} quarantined as poison pills)")
      end

      def check_timing!
        return if @config.heartbeat_ttl >= 2 * @config.heartbeat_interval
        raise ConfigError, "heartbeat_ttl (#{@config.heartbeat_ttl}s) must be at least twice heartbeat_interval " \
          "(#{@config.heartbeat_interval}s), or live processes would look dead and have their jobs taken"
      end
    end
  end
end
