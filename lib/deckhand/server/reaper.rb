# frozen_string_literal: true

require "json"
require_relative "quarantine"
require_relative "suspects"

module Deckhand
  module Server
    # Gives the jobs of dead processes back to the living, with no restart
    # needed. Every server process runs one; a short Redis lock lets one act at
    # a time. A process is dead when its heartbeat record (`<identity>`, TTL
    # config.heartbeat_ttl) has expired while it still owns an in-flight record
    # (`deckhand:owners`). Its jobs go back to the front of their queues in one
    # atomic step (store/scripts/recover.lua), counted per jid; a job counted
    # config.max_recoveries times is a poison pill and goes to the dead set.
    #
    #   reaper = Deckhand::Server::Reaper.new(config: config, store: config.store, identity: id)
    #   reaper.start   # a pass every config.reaper_interval seconds
    #   reaper.reap    # one pass now; returns the number of processes recovered
    #   reaper.stop
    #
    # Bound: a SIGKILLed process's jobs are back in their queues at most
    # heartbeat_ttl + reaper_interval * 1.2 seconds after its last heartbeat
    # (defaults 40 + 6: under 60 s).
    class Reaper
      COUNTER_TTL = 24 * 60 * 60
      JITTER = 0.2

      def initialize(config:, store:, identity:)
        @config = config
        @store = store
        @identity = identity
        @logger = config.logger
        @quarantine = Quarantine.new(config: config, store: store)
        Suspects.for(identity, store: store, logger: @logger).last_chance = config.max_recoveries - 1
        @sleeper = Sleeper.new
        @owner = JSON.generate({"queues" => config.all_capsules.flat_map(&:queues).uniq,
                                "hostname" => Identity.hostname, "pid" => ::Process.pid, "started_at" => Time.now.to_f})
        check_timing!
      end

      # Records this process as the owner of its in-flight jobs (no TTL): how its
      # jobs are found again if it dies. Called before the first fetch; raises
      # when Redis cannot be reached.
      def register = @store.call("HSET", Store::Keys::OWNERS, @identity, @owner)

      def start
        @thread = Thread.new do
          Thread.current.name = "deckhand-reaper"
          run
        end
        self
      end

      def stop
        @sleeper.stop
        @thread&.join(5)
        Suspects.forget(@identity)
      end

      # One pass, if this process wins the lock. Returns how many dead processes
      # it recovered.
      def reap
        return 0 unless lock
        owners, poison = @store.pipelined do |pipe|
          pipe.call("HGETALL", Store::Keys::OWNERS)
          pipe.call("HGETALL", Store::Keys::POISON)
        end
        dead = dead_owners(owners)
        dead = [] if dead.any? && redis_just_started?
        dead.each { |identity, owner| recover(identity, owner) }
        @quarantine.bury_all if dead.any? || poison.any?
        dead.size
      end

      private

      def run
        failures = 0
        while @sleeper.sleep(@config.reaper_interval * (1 - JITTER + (2 * JITTER * rand)))
          begin
            claim
            reap
            failures = 0
          rescue Deckhand::RedisError => e
            @logger.warn("reaper cannot reach Redis (#{e.message}); retrying") if failures.zero?
            failures += 1
          rescue => e
            @logger.error("reaper pass failed: #{e.class}: #{e.message}")
          end
        end
      end

      # The owner record must name this process as long as it may hold jobs:
      # if it was ever taken for dead (a pause longer than the heartbeat TTL) and
      # recovered, the record is gone, and its next jobs would have no owner.
      def claim
        register
      rescue Deckhand::RedisError => e
        @logger.warn("could not record this process as an owner of in-flight jobs (#{e.message}); retrying")
      end

      # Held a little less than an interval, never released: the fleet then
      # makes about one pass per interval however many processes it has.
      def lock
        ttl_ms = [(@config.reaper_interval * 800).round, 50].max
        @store.call("SET", Store::Keys::REAPER_LOCK, @identity, "NX", "PX", ttl_ms) == "OK"
      end

      def dead_owners(owners)
        candidates = owners.reject { |identity, _| identity == @identity }
        return [] if candidates.empty?
        alive = @store.pipelined do |pipe|
          candidates.each_key { |identity| pipe.call("EXISTS", Store::Keys.process(identity)) }
        end
        candidates.keys.zip(alive).filter_map { |identity, live| [identity, candidates[identity]] if live.zero? }
      end

      # Right after Redis restarts every process record may have expired while
      # it was down; give live processes one TTL to beat again before judging.
      def redis_just_started?
        uptime = @store.call("INFO", "server")[/uptime_in_seconds:(\d+)/, 1]
        uptime && uptime.to_i < @config.heartbeat_ttl
      rescue Deckhand::CommandError
        false # INFO disabled: judge by the records alone
      end

      def recover(identity, owner)
        queues = owner_queues(identity, owner)
        keys = [Store::Keys::OWNERS, Store::Keys.process(identity), Store::Keys.inflight(identity),
          Store::Keys.suspects(identity), Store::Keys::POISON, Store::Keys::PROCESSES,
          *queues.map { |q| Store::Keys.landing(identity, q) }]
        argv = [identity, @config.max_recoveries, COUNTER_TTL, Store::Keys.recoveries(""), *queues]
        recovered, counted, poisoned = @store.script(:recover, keys, argv)
        return if recovered.negative?
        @logger.warn("process #{identity} stopped beating: recovered #{recovered} of its jobs to their queues " \
          "(#{counted} counted as recoveries, #{poisoned} quarantined as poison pills)")
      end

      def owner_queues(identity, owner)
        Array(JSON.parse(owner)["queues"]).map(&:to_s)
      rescue JSON::ParserError
        @logger.error("owner record of #{identity} is not JSON; recovering its in-flight hash without its landing lists")
        []
      end

      def check_timing!
        return if @config.heartbeat_ttl >= 2 * @config.heartbeat_interval
        raise ConfigError, "heartbeat_ttl (#{@config.heartbeat_ttl}s) must be at least twice heartbeat_interval " \
          "(#{@config.heartbeat_interval}s), or live processes would look dead and have their jobs taken"
      end
    end
  end
end
