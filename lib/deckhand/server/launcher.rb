# frozen_string_literal: true

module Deckhand
  module Server
    # Starts and stops everything a server process runs: its capsules, the
    # scheduler, the reaper, the heartbeat and, in cluster mode, the batch
    # and workflow outbox drains and the sweep of retired queue tags, and builds what they share (the process's identity,
    # stats, lot numbering, suspects). The CLI (or Deckhand.embed, or a
    # swarm worker) owns one.
    #
    #   launcher = Deckhand::Server::Launcher.new(config, on_fatal: ->(error) { exit!(1) })
    #   launcher.start
    #   launcher.quiet           # TSTP: finish running jobs, take no more
    #   launcher.stop            # TERM: quiet, wait up to config.timeout, hand the rest back
    #
    # on_fatal is called (once, on a thread of its own) when a component keeps
    # crashing and gives up; the launcher has stopped by then. The CLI exits
    # with status 1 so the process is replaced. stats: what keeps this
    # process's counts and running jobs (drop-in mode adds Sidekiq's to
    # them). embedded: a server inside another process (Deckhand.embed),
    # which says so in its record and leaves the host's process title alone.
    class Launcher
      attr_reader :identity, :config
      attr_reader :capsules, :heartbeat, :stats, :operations, :eviction_watch # read by Operations (health, metrics)

      # eviction_told: the eviction concerns (Store::Connection::MemoryConcerns) the
      # caller has logged at boot already, not to be said twice.
      def initialize(config, on_signal: nil, on_fatal: nil, eviction_told: [], stats: Chores::Activity.new, embedded: false)
        @config = config
        @logger = config.logger
        @store = config.store
        @identity = Identity.generate
        @stats = stats
        @embedded = embedded
        @on_fatal = on_fatal
        fatal = ->(component, error) { fatal(component, error) }
        suspects = Recovery::Suspects.new(@identity, store: @store, logger: @logger, max_recoveries: config.max_recoveries)
        sequence = Fetch::Sequence.new
        throttles = Fetch::ThrottleLimits.new(config.throttle, logger: @logger, partitions: config.partitions)
        landings = Fetch::Idle::LandingWatch.new # shared: two capsules may wait on one queue's landing list
        @capsules = config.server_capsules.map do |spec|
          CapsulePool.new(spec, config: config, store: @store, identity: @identity, sequence: sequence,
            stats: @stats, suspects: suspects, on_fatal: fatal, throttles: throttles, landings: landings)
        end
        @on_signal = on_signal || ->(signal) { ::Process.kill(signal, ::Process.pid) }
        @balancer = Balance::Balancer.build(config: config, store: @store, times: @stats.class_times, capsules: @capsules, on_fatal: fatal)
        @eviction_watch = Chores::EvictionWatch.new(config: config, store: @store, told: eviction_told)
        sampler = Chores::QueueSampler.new(store: @store, identity: @identity, logger: @logger, partitions: config.partitions)
        @heartbeat = Chores::Heartbeat.new(config: config, store: @store, identity: @identity, stats: @stats, watch: @eviction_watch, sampler: sampler,
          info: -> { info }, balance: @balancer && -> { @balancer.report }, on_signal: ->(signal) { remote_signal(signal) }, on_fatal: fatal,
          inflight: -> { @capsules.sum { |capsule| capsule.fetcher.outstanding } },
          on_paused: ->(names) { @capsules.each { |capsule| capsule.fetcher.paused = names } },
          on_throttles: ->(overrides) { throttles.update(overrides) }, before_beat: embedded ? nil : -> { retitle },
          on_priorities: ->(levels) { @capsules.each { |capsule| capsule.fetcher.levels = levels } }, queues: all_queues)
        @reaper = Recovery::Reaper.new(config: config, store: @store, identity: @identity, on_fatal: fatal,
          steady_for: -> { @heartbeat.steady_for })
        @scheduler = Chores::Scheduler.new(config: config, store: @store, process_count: -> { @heartbeat.process_count },
          on_fatal: fatal)
        @periodic = Chores::PeriodicLoop.build(config: config, store: @store, identity: @identity, on_fatal: fatal)
        @outbox = Chores::BatchOutboxDrain.build(config: config, store: @store, on_fatal: fatal)
        @flow_outbox = Chores::WorkflowOutboxDrain.build(config: config, store: @store, on_fatal: fatal)
        @sweeper = Chores::RetiredSweeper.build(config: config, store: @store, on_fatal: fatal)
        @requeue = Store::Scripts::Requeue.new(@store, identity: @identity, queues: all_queues)
        @stopped = false
        @fatal = Mutex.new
      end

      # Raises ConfigError, with nothing started, when refuse_evicting_redis
      # is set and Redis may evict jobs.
      def start
        @eviction_watch.boot # warns at boot (or refuses) before the first job
        @operations = Operations.start(self) # metrics_port, health_check: bound before anything runs
        @store.name_connections(Store::Connection::Clients.name_of(@identity))
        @store.clock.measure # every time this process writes or compares is Redis' (docs/internals.md, "One clock")
        @reaper.register
        @heartbeat.start
        @reaper.start
        @capsules.each(&:start)
        @balancer&.start
        @scheduler.start
        @periodic&.start
        @outbox&.start
        @flow_outbox&.start
        @sweeper&.start
        @logger.info("Deckhand #{VERSION} started as #{@identity}: #{describe_capsules}")
        JRubyAdvice.message&.then { |advice| @logger.info(advice) }
        @config.events.fire(:startup, @logger)
        @heartbeat.announce! # :heartbeat and :beat follow :startup, as in Sidekiq
        self
      end

      def quiet
        return if @quiet
        @quiet = true
        @logger.info("quiet: finishing running jobs, taking no more")
        @heartbeat.quiet!
        @capsules.each(&:quiet)
        @config.events.fire(:quiet, @logger)
      end

      # Graceful stop: quiet, wait up to config.timeout for running jobs, hand
      # unfinished ones back to the front of their queues, remove our record.
      def stop
        return if @stopped
        @stopped = true
        Lifecycle.stopping!
        deadline = Monotonic.now + @config.timeout
        @reaper.stop
        quiet
        @config.events.fire(:shutdown, @logger)
        @scheduler.stop
        @balancer&.stop
        @outbox&.stop
        @flow_outbox&.stop
        @sweeper&.stop
        @periodic&.stop&.join(5)
        @reaper.join(5)
        @scheduler.join(5)
        @balancer&.join(5)
        @outbox&.join(5)
        @flow_outbox&.join(5)
        @sweeper&.join(5)
        stuck = @capsules.flat_map { |capsule| capsule.drain(deadline) }
        interrupt(stuck)
        @capsules.each { |capsule| capsule.fetcher.flush_acks }
        hand_back
        @heartbeat.stop
        @heartbeat.forget
        @operations&.stop
        @logger.info("stopped")
        @config.events.fire(:exit, @logger)
      end

      def stopping? = @stopped

      # This process's resident memory in KB, or nil where it cannot be read.
      def rss_kb = ResidentMemory.rss_kb

      def quiet? = @quiet || false

      # A Sidekiq-style process description, readable by Sidekiq's ProcessSet.
      def info
        {
          "hostname" => Identity.hostname, "started_at" => @store.clock.now, "pid" => ::Process.pid,
          "tag" => @config.tag, "concurrency" => @config.total_concurrency,
          "queues" => @config.all_capsules.flat_map(&:queues).uniq, "weights" => @config.all_capsules.map { |c| weights(c) },
          "labels" => @config.labels, "identity" => @identity, "version" => VERSION,
          "embedded" => @embedded, "server" => "deckhand",
          "capsules" => @config.all_capsules.to_h { |c| [c.name, capsule_info(c)] },
          "throttles" => @config.throttle.to_h.transform_values(&:to_h),
          "partitions" => @config.partitions.to_h
        }
      end

      def embedded? = @embedded

      private

      # The process title Lifecycle.title gives (Sidekiq's in drop-in mode),
      # set before each beat as Sidekiq sets it. A title that cannot be made
      # is logged; the beat goes on.
      def retitle
        title = Lifecycle.title&.call(self)
        $0 = title if title
      rescue => e
        @logger.warn("the process title could not be set (#{e.class}: #{e.message})")
      end

      # Every list this process fetches from: each partition of a partitioned queue.
      def all_queues = @config.server_capsules.flat_map(&:queues).uniq

      # What a capsule enforces, published so dashboards without this
      # process's configuration show it.
      def capsule_info(capsule)
        {"concurrency" => capsule.concurrency, "mode" => capsule.strict? ? "strict" : "weighted",
         "queues" => capsule.queues, "weights" => weights(capsule)}.tap { |info| info["fibers"] = true if capsule.fibers? }
      end

      def weights(capsule) = capsule.queues.to_h { |q| [q, capsule.strict? ? 0 : capsule.weights[q]] }

      def describe_capsules
        @config.all_capsules.map { |c| "#{c.name}(#{c.concurrency} #{workers(c)}: #{c.queues.join(", ")})" }.join(" ")
      end

      def workers(capsule)
        kind = capsule.fibers? ? "fiber" : "thread"
        (capsule.concurrency == 1) ? kind : "#{kind}s"
      end

      def interrupt(processors)
        return if processors.empty?
        running = processors.sum(&:running)
        # A fiber pool may still be ending its idle fibers: nothing to report.
        @logger.warn("#{running} jobs still running after #{@config.timeout}s; interrupting them and handing them back") if running.positive?
        processors.each(&:kill)
        processors.each { |p| p.join(2) }
      end

      def hand_back
        count = @requeue.all
        @logger.info("handed #{count} unfinished jobs back to their queues") if count.positive?
        Store::Inflight::Owners.forget(@store, @identity)
      rescue Deckhand::RedisError => e
        @logger.error("could not hand jobs back (#{e.message}); they stay in flight for the reaper to recover")
      end

      # A component gave up: stop what can be stopped, hand jobs back, and let
      # the owner end the process.
      def fatal(component, error)
        return unless @fatal.try_lock
        Component.errand("fatal-stop", logger: @logger) do
          @logger.error("#{component.name} cannot keep running (#{error.class}: #{error.message}); stopping this process")
          stop
          @on_fatal ? @on_fatal.call(error) : @logger.error("the server has stopped; nothing was given to end the process (on_fatal)")
        end
      end

      def remote_signal(signal)
        @logger.info("received #{signal} from the dashboard")
        @on_signal.call(signal)
      end
    end
  end
end
