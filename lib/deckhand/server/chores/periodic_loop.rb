# frozen_string_literal: true

require_relative "../../component"
require_relative "leadership"
require_relative "../../store/features/periodic_state"
require_relative "../../store/scripts/periodic/periodic_lease"
require_relative "../../store/scripts/periodic/periodic_enqueue"
require_relative "../../periodic/job_builder"
require_relative "../../periodic/schedule_check"
require_relative "../../periodic/foreign_schedulers"
require_relative "../../periodic/tick_history"

module Deckhand
  module Server
    module Chores
      # Enqueues the periodic (cron) jobs of config.periodic. Every process
      # with periodic entries runs one; the one holding the leader's lease
      # (Leadership) does the work, the others only try to take the lease
      # every few seconds, so a new leader takes over within about
      # LEASE + LEASE / 3 seconds of the old one's death, at once after a
      # graceful stop. Each tick goes through store/scripts/periodic/periodic_enqueue.lua,
      # which enqueues it at most once however many processes try (in cluster
      # mode it records the tick, and the push to the queue's slot follows:
      # Store::Features::PeriodicTicks). Wakes at each tick; a leader that woke late (a
      # pause shorter than its lease) enqueues the ticks it overslept; ticks
      # missed with no leader (the fleet was down, a takeover) make one run, of
      # the latest, if younger than config.periodic.grace. With push_replicas
      # set, a tick whose push its replicas did not acknowledge in time
      # (NotReplicated) is logged as a warning and not pushed again: the job
      # is in its queue and runs.
      #
      #   loop = PeriodicLoop.build(config: config, store: store, identity: identity)  # nil without entries
      #   loop&.start
      #   loop&.stop&.join(5)    # gives the lease up
      class PeriodicLoop < Component
        LEASE = 6 # seconds
        CHECK_EVERY = 30 # seconds between a follower's looks at the leader's schedule
        PUBLISH_EVERY = 60 # seconds between the leader's writes of its schedule
        CATCH_UP = 20 # ticks a leader late by less than its lease enqueues late, at most

        def self.build(config:, store:, identity:, on_fatal: nil)
          new(config: config, store: store, identity: identity, on_fatal: on_fatal) if config.periodic.any?
        end

        def initialize(config:, store:, identity:, on_fatal: nil, lease: LEASE)
          super("periodic", logger: config.logger, on_fatal: on_fatal)
          @store = store
          @identity = identity
          @entries = config.periodic.entries
          @grace = config.periodic.grace
          @leadership = Chores::Leadership.new(store, identity, ttl: lease, logger: @logger)
          @enqueue = Store::Scripts::PeriodicEnqueue.new(store)
          @builder = Periodic::JobBuilder.new(config)
          @foreign = Periodic::ForeignSchedulers.new(store, @logger)
          @history = Periodic::TickHistory.new(store, @logger)
          @sleeper = Sleeper.new
          @outage = Outage.new(@logger, "periodic")
          @tried = {}
          @published = now
          @warned = nil
          @checked = nil
        end

        def leader? = @leadership.leader?

        private

        def wake = @sleeper.stop

        def run
          until stopping?
            begin
              wait = step
              @outage.over
              @sleeper.sleep(wait)
            rescue Deckhand::RedisError => e
              @leadership.unreachable
              @sleeper.sleep(@outage.failed(e))
            end
          end
        ensure
          @leadership.resign
        end

        # One round; returns the seconds to sleep.
        def step
          led = leader?
          unless @leadership.refresh
            check_schedule
            return @leadership.wait
          end
          took_over unless led
          complete_pending unless @store.layout.plain?
          publish if now - @published >= PUBLISH_EVERY
          next_tick = enqueue_due(realtime)
          return 0 unless leader?
          [next_tick - realtime, @leadership.wait].min.clamp(0.0, @leadership.ttl)
        end

        # The new leader's schedule is the one that runs: stored for the
        # dashboard and the other processes, its changes named in the log.
        def took_over
          @tried.clear
          before = Store::Features::PeriodicState.schedule(@store)
          changes = before ? Periodic::ScheduleCheck.differences(@entries, before["entries"], there: "before") : []
          @logger.info("periodic: the schedule changed from #{before["leader"]}'s: #{changes.join("; ")}") unless changes.empty?
          publish
        end

        # Cluster mode: a tick is recorded, then pushed to its queue (another
        # slot); the pushes a process left recorded when it died (or when
        # Redis failed between the two) are completed here, each once.
        def complete_pending
          pushed = Store::Features::PeriodicTicks.complete(@store)
          @logger.info("periodic: pushed #{pushed} tick(s) recorded before but not yet in their queue") if pushed.positive?
        rescue Deckhand::NotReplicated => e
          unreplicated(e) # the push is done and its record cleared; the others left are completed next round
        end

        def unreplicated(error)
          @logger.warn("periodic: enqueued #{error.jids.join(", ")} but not yet on enough replicas; it will run and is " \
            "not pushed again: #{error.message}")
        end

        # Written at takeover and again now and then, should the key be lost.
        def publish
          Store::Features::PeriodicState.write_schedule(@store, {"leader" => @identity, "at" => realtime,
            "entries" => Periodic::ScheduleCheck.describe(@entries)})
          @published = now
        end

        # Enqueues each entry's due ticks; returns the earliest next tick. An
        # entry that sidekiq-cron or sidekiq-scheduler still enqueues in a
        # Sidekiq process of this Redis is left to it (Periodic::ForeignSchedulers).
        def enqueue_due(now)
          @entries.map do |entry|
            following = entry.timing.next_after(now.floor)
            ticks = pending(entry, now)
            if !ticks.empty? && leader? && (owner = @foreign.owner(entry))
              @tried[entry.name] = ticks.last
              @history.skipped(entry.name, ticks.last, "#{owner.scheduler} enqueues it (its entry #{owner.name.inspect}, in a Sidekiq process)")
            else
              ticks.each { |due| attempt(entry, due, following, now) if leader? }
            end
            following
          end.min
        end

        # The ticks to try: every tick since the last this leader tried, as it
        # held the lease meanwhile (a pause shorter than the lease loses none);
        # after a takeover or a start, only the latest (never a backlog).
        def pending(entry, now)
          due = entry.timing.last_until(now.floor)
          last = @tried[entry.name]
          return [due] unless last
          ticks = []
          tick = last
          ticks << tick while (tick = entry.timing.next_after(tick)) <= due && ticks.size <= CATCH_UP
          (ticks.size > CATCH_UP) ? [due] : ticks
        end

        def attempt(entry, due, following, now)
          late = now - due > @grace
          job = late ? nil : @builder.build(entry)
          job&.merge!("periodic" => entry.name, "periodic_at" => due) # which tick: the entry and its scheduled time
          outcome = @enqueue.call(token: @leadership.token, name: entry.name, tick: job ? due : 0, next_tick: following,
            queue: job ? job["queue"] : entry.queue || "default", jid: job ? job["jid"] : "",
            payload: job ? @builder.encode(job) : "", now: now)
          return @leadership.lost!("another process took the lease") if outcome == :not_leader
          return if outcome == :pending # another push of the entry to complete first: this tick next round
          @tried[entry.name] = due
          record(entry, due, job, outcome, late ? "missed: #{(now - due).round} s late, past the grace of #{@grace.round} s" : nil)
          @logger.debug("periodic #{entry.name}: enqueued #{entry.klass} for #{Time.at(due).utc} as #{job["jid"]}") if outcome == :enqueued
        rescue Deckhand::NotReplicated => e
          # push_replicas: the job is in its queue, only not yet proven on the
          # replicas. Pushing it again would run it twice; the tick stays
          # enqueued (once, by the script), so it is not tried again. An error
          # naming another job is of an earlier tick's push, completed before
          # this one was asked for: this tick is asked for next round.
          @tried[entry.name] = due if job && e.jids.include?(job["jid"])
          unreplicated(e)
        rescue Deckhand::RedisError
          raise
        rescue Deckhand::AppError => e # the application's (a middleware, an Active Job serializer): this tick is lost, not the loop
          @tried[entry.name] = due
          @logger.error("periodic #{entry.name}: could not build #{entry.klass}'s job for #{Time.at(due).utc}: #{e.class}: #{e.message}")
        end

        # The tick in its entry's history: enqueued, or skipped and why. A
        # tick without a job is recorded only when it is later than the
        # entry's last enqueued and its first sighting: after a takeover the
        # latest tick is often a past one, which the last leader enqueued.
        def record(entry, due, job, outcome, late)
          if outcome == :enqueued then @history.enqueued(entry.name, due, job["jid"], job["queue"])
          elsif outcome == :paused then @history.skipped(entry.name, due, "paused")
          elsif !job && unseen?(entry, due) then @history.skipped(entry.name, due, late || "a client middleware stopped its push")
          end
        end

        def unseen?(entry, due)
          state = Store::Features::PeriodicState.states(@store, [entry.name]).first || {}
          due > state["last_tick"].to_f && state["since"] && due > state["since"].to_f
        end

        # A follower names once how its entries differ from the leader's.
        def check_schedule
          return if @checked && now - @checked < CHECK_EVERY
          @checked = now
          schedule = Store::Features::PeriodicState.schedule(@store) or return
          differences = Periodic::ScheduleCheck.differences(@entries, schedule["entries"])
          return if differences.empty? || differences == @warned
          @warned = differences
          @logger.warn("periodic: this process's schedule differs from the leader's (#{schedule["leader"]}), " \
            "whose schedule runs: #{differences.join("; ")}")
        end

        # The fleet's clock: a tick is due by Redis' time, whichever host
        # leads. How long since this loop last published or checked is this
        # host's monotonic clock's (Component#now).
        def realtime = @store.clock.now
      end
    end
  end
end
