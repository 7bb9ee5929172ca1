# frozen_string_literal: true

require "json"
require_relative "../../component"
require_relative "clock_skew"
require_relative "chunk_roster"

module Deckhand
  module Server
    module Chores
      # Every few seconds, in one round trip: publishes this process's record
      # (Sidekiq's `processes` set and identity hash, with a TTL), the jobs its
      # threads are running, the processed/failed counts since the last beat, and
      # picks up a remote signal (quiet, stop, dump) sent from the dashboard or API
      # and the cancels of the jobs it runs (Run::Cancels: a cancelled job is
      # told at once and interrupted once its grace period is over, at the
      # first beat after it).
      # Each beat also reads Redis' clock, which the store's clock follows
      # (Store::Records::Clock): the offset of this host's clock is published with the
      # record and logged while it is over a second.
      # After a beat, the eviction watch (Server::Chores::EvictionWatch) takes its look
      # at Redis' memory when one is due: far less often than the beats.
      # Once the launcher announced the server (#announce!, after :startup),
      # each beat that reached Redis fires the configuration's :beat event, the
      # first of them :heartbeat too, as Sidekiq's heartbeat fires them.
      class Heartbeat < Component
        attr_reader :process_count, :rtt_us

        # info: the process's description (a Hash, or something answering call
        # that returns one, asked once at the first beat: "started_at" is then
        # timed by the fleet's clock, measured at boot).
        # inflight: how many jobs the process holds (running or about to), shown
        # beside busy on the dashboard.
        # balance: the balancer's last report (auto_balance), written with each beat.
        # watch: the EvictionWatch ticked after each beat of the loop.
        # sampler: the QueueSampler ticked after it.
        # before_beat: called before each beat (the launcher names the process).
        def initialize(config:, store:, identity:, stats:, info:, on_signal:, inflight: -> { 0 }, on_paused: nil, on_fatal: nil,
          on_throttles: nil, on_priorities: nil, queues: [], balance: nil, watch: nil, sampler: nil, before_beat: nil)
          super("heartbeat", logger: config.logger, on_fatal: on_fatal)
          @inflight = inflight
          @on_paused = on_paused
          @on_throttles = on_throttles
          @on_priorities = on_priorities
          @queues = queues # whose priority levels each beat reads
          @balance = balance
          @watch = watch
          @sampler = sampler
          @before_beat = before_beat
          @config = config
          @store = store
          @identity = identity
          @stats = stats
          @info_source = info
          @info = nil
          @concurrency = nil
          @skew = Chores::ClockSkew.new(@logger)
          @roster = Chores::ChunkRoster.new # what the record's set of chunk members holds
          @on_signal = on_signal
          @sleeper = Sleeper.new
          @quiet = false
          @process_count = 1
          @rtt_us = 0
          @beat_at = now
          @failed_at = nil
          @placement_epoch = 0 unless store.layout.plain? # cluster mode: no move followed yet
          @outage = Outage.new(@logger, "heartbeat (the process keeps working)")
          @events_lock = Mutex.new
          @announced = false
          @reached = false
          @greeted = false
        end

        def start
          beat
          super
        end

        def quiet! = @quiet = true

        # Stops beating after one last beat with the final counts.
        def stop
          super
          join(5)
          beat
          self
        end

        # Removes this process's record (clean shutdown).
        def forget
          Store::Records::Heartbeats.forget(@store, @identity)
        rescue Deckhand::RedisError => e
          @logger.warn("could not remove the process record (#{e.message}); it expires by itself")
        end

        def beat
          @before_beat&.call
          reached = write
          @roster.settled(reached)
          interrupt_overdue
          beaten if reached && @announced
          reached
        end

        # From here on each beat that reaches Redis fires :beat (the first
        # :heartbeat too); at once when one already did, as Sidekiq's first
        # beat follows :startup.
        def announce!
          now = @events_lock.synchronize do
            next false if @announced
            @announced = true
            @reached
          end
          beaten if now
        end

        # Seconds since a beat last reached Redis (or since this heartbeat was built).
        def silent_for = now - @beat_at

        # Seconds since a beat last failed (infinite when none has): how long
        # Redis has answered this process without a break (Reaper).
        def steady_for = @failed_at ? now - @failed_at : Float::INFINITY

        private

        # One beat's round trip; true when it reached Redis.
        def write
          counts = @stats.take
          metrics = @stats.metrics.take
          errors = @stats.metrics.take_errors
          started = now
          cancels = @stats.cancels
          reply = Store::Records::Heartbeats.beat(@store, @identity, counts: counts, metrics: metrics, record: record,
            sidekiq_metrics: @config.fleet_versions.sidekiq_metrics, running: cancels.jids, queues: @queues, errors: errors)
          @skew.observe(@store.clock.offset)
          follow_placement(reply.placement) if reply.placement
          @on_paused&.call(reply.paused)
          @stats.class_pause.update(reply.paused_classes)
          @on_throttles&.call(reply.throttles)
          @on_priorities&.call(reply.priorities)
          @rtt_us = ((now - started) * 1_000_000).round
          @process_count = reply.processes
          @beat_at = now
          @outage.over
          @on_signal.call(reply.signal) if reply.signal
          told(cancels, reply.cancels)
          follow_fleet
          @reached = true
        rescue Deckhand::RedisError => e
          @stats.restore(*counts)
          @stats.metrics.restore(metrics) if metrics
          @stats.metrics.restore_errors(errors) if errors
          @failed_at = now
          @outage.failed(e)
          false
        end

        # Config::Events' blocks log their own errors: the beat stands.
        def beaten
          first = @events_lock.synchronize { @greeted ? false : (@greeted = true) }
          @config.events.fire(:heartbeat, @logger) if first
          @config.events.fire(:beat, @logger)
        end

        def told(cancels, marks)
          grace = @config.cancel_grace
          cancels.seen(marks, now: now, grace: grace).each do |jid|
            @logger.info("job #{jid} was cancelled: it stops by itself, or is interrupted after #{marks[jid] || grace}s")
          end
        end

        # A class resumed while this process held its jobs: those it held
        # since the resume (it did not know yet) go back to its queues. A
        # Redis failure leaves the class to the next beat.
        def release_held
          @stats.class_pause.releasing do |name|
            queues = @config.server_capsules.flat_map(&:queues).uniq.flat_map { |queue| @config.partitions.names(queue) }
            moved = Store::Jobs::HeldClasses.release(@store, name, queues)
            @logger.info("#{name} resumed: #{moved} held jobs back in their queues") if moved.positive?
          end
        rescue Deckhand::RedisError => e
          @logger.warn("moving the held jobs of a resumed class back failed (#{e.message}); the next beat tries again")
        end

        # Whether or not the beat reached Redis: a cancel seen is carried out.
        def interrupt_overdue
          @stats.cancels.overdue(now: now).each do |jid|
            @logger.warn("job #{jid} did not stop within the grace period of its cancel: interrupting it (Deckhand::Cancelled)")
          end
        end

        def wake = @sleeper.stop

        def run
          while @sleeper.sleep(@config.heartbeat_interval)
            beat
            watch
            sample
            release_held
          end
        end

        # The watch only advises and the sampler only draws charts: a fault of
        # either is logged and never stops the beats, which keep this process
        # alive in the others' eyes.
        def watch
          @watch&.tick
        rescue => e
          @logger.error("the eviction watch failed (#{e.class}: #{e.message}); the heartbeat goes on")
        end

        def sample
          @sampler&.tick
        rescue => e
          @logger.error("sampling the queues failed (#{e.class}: #{e.message}); the heartbeat goes on")
        end

        # The Sidekiq versions of the fleet (timestamps: :auto, Active Job's
        # wrapper class, the metrics layouts) are looked at from here, off the
        # job threads, at the next beat after the fleet's size changed.
        def follow_fleet
          @config.fleet_versions.follow(@store, @process_count)
        end

        # Cluster mode: a queue moved (Store::Tags::QueueMove) when the epoch
        # changed. The tags are read again before the paused queues (a queue
        # being moved among them) reach the fetchers, and the next record tells
        # the mover this process follows the epoch: by then no fetch of a
        # queue being moved is under way here.
        def follow_placement((epoch, _moving))
          @store.layout.placement.follow(epoch)
          @placement_epoch = epoch
        rescue Deckhand::RedisError => e # the beat itself went through: its counts must not be restored
          @logger.warn("could not read the queues' placements (#{e.message}); trying again at the next beat")
        end

        def record
          unless @info
            info = @info_source.respond_to?(:call) ? @info_source.call : @info_source
            @info = JSON.generate(info)
            @concurrency = info["concurrency"]
          end
          running = @stats.running
          {info: @info, concurrency: @concurrency, clock: @store.clock.offset, running: running, inflight: @inflight.call, rtt_us: @rtt_us, quiet: @quiet,
           rss_kb: ResidentMemory.rss_kb || 0, ttl: @config.heartbeat_ttl, placement: @placement_epoch,
           balance: @balance&.call, chunks: @roster.change(running)}
        end
      end
    end
  end
end
