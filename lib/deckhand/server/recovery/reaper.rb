# frozen_string_literal: true

require "json"
require_relative "../../component"
require_relative "quarantine"

module Deckhand
  module Server
    module Recovery
      # Gives the jobs of dead processes back to the living, with no restart
      # needed. Every server process runs one; a short Redis lock lets one act at
      # a time. A process that owns an in-flight record (`deckhand:owners`) is
      # dead when two witnesses agree: its heartbeat is silent (no beat for two
      # heartbeat intervals) and Redis holds no connection of it (its
      # connections are named after its identity, and the kernel closes them the
      # moment the process dies, however it dies). A process merely paused (a
      # long GC, a stopped or starved host, a brief network cut) keeps its
      # connections open and its jobs, unless silent past config.hung_after.
      # Where Redis refuses CLIENT LIST, the rule is the heartbeat record's TTL
      # (config.heartbeat_ttl). The unsettled jobs of a dead process go back to
      # the front of their queues in one atomic step (store/scripts/fetch/recover.lua),
      # counted per jid; a job counted config.max_recoveries times is a poison
      # pill and goes to the dead set.
      #
      #   reaper = Deckhand::Server::Recovery::Reaper.new(config: config, store: config.store, identity: id)
      #   reaper.start   # a pass every config.reaper_interval seconds
      #   reaper.reap    # one pass now; returns the number of processes recovered
      #   reaper.stop
      #
      # Bound: a SIGKILLed process's jobs are back in their queues at most
      # 2 * heartbeat_interval + reaper_interval * 1.2 seconds after its last
      # heartbeat (defaults 4 + 2.4), or heartbeat_ttl + reaper_interval * 1.2
      # where CLIENT LIST is refused (40 + 2.4).
      #
      # A stall of Redis, or a cut between it and this host, silences every
      # process at once and may close the connections that were waiting on it:
      # the reaper judges no one until its own heartbeat has gone through
      # without a failure for three heartbeat intervals (steady_for), as after
      # a Redis restart, giving live processes time to beat and reconnect.
      class Reaper < Component
        COUNTER_TTL = 24 * 60 * 60
        JITTER = 0.2

        # steady_for: seconds Redis has answered this process without a break
        # (Heartbeat#steady_for), or nil to judge regardless.
        def initialize(config:, store:, identity:, on_fatal: nil, steady_for: nil)
          super("reaper", logger: config.logger, on_fatal: on_fatal)
          @steady_for = steady_for
          @config = config
          @store = store
          @identity = identity
          @quarantine = Recovery::Quarantine.new(config: config, store: store)
          @sleeper = Sleeper.new
          @owner = {"queues" => config.server_capsules.flat_map(&:queues).uniq, "hostname" => Identity.hostname,
                    "pid" => ::Process.pid, "beats_every" => config.heartbeat_interval}
          @outage = Outage.new(@logger, "reaper")
          check_timing!
        end

        # Records this process as the owner of its in-flight jobs (no TTL): how its
        # jobs are found again if it dies, with when it was last seen (each
        # pass), by the fleet's clock. Called before the first fetch; raises
        # when Redis cannot be reached.
        def register
          now = @store.clock.now
          @owner["started_at"] ||= now
          Store::Inflight::Owners.register(@store, @identity, @owner.merge("seen" => now))
        end

        # One pass, if this process wins the lock. Returns how many dead processes
        # it recovered.
        def reap
          return 0 unless Store::Inflight::Owners.lock(@store, @identity, [(@config.reaper_interval * 800).round, 50].max)
          dead = dead_owners(Store::Inflight::Owners.all(@store))
          dead.each { |identity, owner, beat, why| recover(identity, owner, beat, why) }
          @quarantine.bury_all(Store::Jobs::Queues.names(@store).flat_map { |queue| @config.partitions.names(queue) }.uniq)
          dead.size
        end

        private

        def wake = @sleeper.stop

        def run
          while @sleeper.sleep(@config.reaper_interval * (1 - JITTER + (2 * JITTER * rand)))
            @outage.attempt(@sleeper) do
              # The owner record must name this process as long as it may hold
              # jobs: if it was ever taken for dead (a pause longer than the
              # heartbeat TTL) and recovered, the record is gone.
              register
              reap
            end
          end
        end

        # [identity, owner record, beat judged by, why], for each dead owner.
        # Each is judged by its own heartbeat interval (a fleet may mix
        # settings), and every time by Redis' clock: the beats were written by
        # the fleet's clock (Store::Records::Clock), and a reaper whose host's clock is
        # wrong must not find live processes silent.
        def dead_owners(owners)
          candidates = owners.reject { |identity, _| identity == @identity }
          return [] if candidates.empty?
          now, beats = Store::Inflight::Owners.beats(@store, candidates.keys)
          silent = candidates.keys.zip(beats).select do |identity, beat|
            beat.nil? || now - beat.to_f > 2 * beats_every(candidates[identity])
          end
          return [] if silent.empty? || unsteady?
          names = Store::Connection::Clients.names(@store)
          return by_ttl(silent, candidates) unless names
          uptime = @store.uptime
          silent.filter_map do |identity, beat|
            owner = candidates[identity]
            # After a Redis restart, live processes need a few beats to reconnect.
            next if uptime && uptime < 3 * beats_every(owner)
            if !names.include?(Store::Connection::Clients.name_of(identity))
              [identity, owner, beat, :gone]
            elsif (silence = hung_for(owner, beat, now))
              [identity, owner, beat, silence]
            end
          end
        end

        def unsteady? = @steady_for && @steady_for.call < 3 * @config.heartbeat_interval

        def beats_every(owner)
          every = owner["beats_every"]
          (every.is_a?(Numeric) && every.positive?) ? every : @config.heartbeat_interval
        end

        # Without CLIENT LIST: dead once the heartbeat record expired.
        def by_ttl(silent, candidates)
          unless @ttl_rule_said
            @logger.warn("Redis refuses CLIENT LIST: a dead process is known only when its heartbeat record " \
              "expires, so its jobs come back after heartbeat_ttl (#{@config.heartbeat_ttl}s) instead of seconds")
            @ttl_rule_said = true
          end
          return [] if redis_up_for?(@config.heartbeat_ttl) == false
          silent.filter_map { |identity, beat| [identity, candidates[identity], nil, :expired] if beat.nil? }
        end

        # Seconds a process that still holds its connections has been silent,
        # when that is longer than hung_after (stopped, deadlocked, starved):
        # its jobs are taken all the same. nil while it is within hung_after.
        def hung_for(owner, beat, now)
          last = beat&.to_f || owner["seen"] || owner["started_at"]
          return nil unless last.is_a?(Numeric)
          silence = now - last
          (silence > @config.hung_after) ? silence : nil
        end

        # Right after Redis restarts every process has lost its connections and
        # may have lost its record; give live processes time to reconnect and
        # beat again before judging. nil where INFO is disabled.
        def redis_up_for?(seconds)
          uptime = @store.uptime
          uptime && uptime >= seconds
        end

        def recover(identity, owner, beat, why)
          queues = Array(owner["queues"]).map(&:to_s)
          recovered, counted, poisoned = Store::Scripts::Recover.new(@store).call(identity: identity, beat: beat,
            queues: queues, limit: @config.max_recoveries, ttl: COUNTER_TTL)
          return if recovered.negative?
          @config.events.fire(:recovered, @logger, recovered) if recovered.positive?
          @logger.warn("process #{identity} #{judgement(why)}: recovered #{recovered} of its jobs to their queues " \
            "(#{counted} counted as recoveries, #{poisoned} quarantined as poison pills)")
        end

        def judgement(why)
          case why
          when :gone then "is gone (no connection to Redis, no heartbeat)"
          when :expired then "stopped beating (its heartbeat record expired)"
          else "is hung (still connected to Redis, but no heartbeat for #{why.round}s, past hung_after: #{@config.hung_after}s)"
          end
        end

        def check_timing!
          return if @config.heartbeat_ttl >= 2 * @config.heartbeat_interval
          raise ConfigError, "heartbeat_ttl (#{@config.heartbeat_ttl}s) must be at least twice heartbeat_interval " \
            "(#{@config.heartbeat_interval}s), or live processes would look dead and have their jobs taken"
        end
      end
    end
  end
end
