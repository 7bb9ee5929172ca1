# frozen_string_literal: true

require "json"
require_relative "../../component"
require_relative "../../store/jobs/backlog"
require_relative "classifier"
require_relative "cores"

module Deckhand
  module Server
    module Balance
      # Auto-balance (config.auto_balance, docs/auto-balance.md): once a
      # second, reads the backlog of every queue and what each job class cost
      # (Balance::ClassTimes), judges which classes are CPU-bound
      # (Balance::Classifier), and tells each capsule's buffer
      # (Balance::CappedBuffer) how to split its fetches (by backlog) and which
      # queues to hold to the cores the process can use: a queue whose jobs
      # spend most of their time in CPU-bound classes. The threads left go to
      # the other queues. It changes what a fetch asks for and which fetched
      # job a thread starts first, never how a job is fetched, acknowledged or
      # recovered.
      #
      #   balancer = Balancer.build(config: config, store: store, times: stats.class_times, capsules: pools).start
      #   balancer.report   # => {"cores" => 1, "caps" => {"cpu" => 1}, "cpu_bound" => ["SieveJob"], ...}
      class Balancer < Component
        INTERVAL = 1.0
        # A queue is capped when at least this share of its jobs' wall time is
        # spent in CPU-bound classes: a cap on a queue that mixes in I/O-bound
        # classes would hold those back too.
        CPU_SHARE = 0.8
        SLICE = 0.1 # seconds: CRuby's thread time slice; a capped queue holds what it runs in one
        MAX_AHEAD = 500
        LOG_EVERY = 10.0 # seconds between decision log lines at most

        # The balancer of a server's capsules (CapsulePool), or nil without auto_balance.
        def self.build(config:, store:, times:, capsules:, on_fatal: nil)
          return nil unless config.auto_balance
          fibers = capsules.select { |capsule| capsule.spec.fibers? }.map { |capsule| capsule.spec.name }
          unless fibers.empty?
            config.logger.warn("auto_balance with the fiber capsule #{fibers.join(", ")}: its jobs share one thread's CPU " \
              "clock, so its classes are not judged reliably; leave auto-balance to thread capsules (docs/auto-balance.md)")
          end
          new(config: config, store: store, times: times, on_fatal: on_fatal,
            buffers: capsules.to_h { |capsule| [capsule.spec.name, capsule.fetcher.balance] })
        end

        # buffers: capsule name => its fetcher's Balance::CappedBuffer.
        def initialize(config:, store:, times:, buffers:, cores: Balance::Cores.usable, on_fatal: nil)
          super("balancer", logger: config.logger, on_fatal: on_fatal)
          @store = store
          @times = times
          @buffers = buffers
          @cores = cores
          @classifier = Balance::Classifier.new(cores: cores)
          @queues = buffers.values.flat_map { |buffer| buffer.state.keys }.uniq
          @sleeper = Sleeper.new
          @outage = Outage.new(@logger, "balancer (capsules keep their last balance)")
          @caps = {}
          @pending = []
          @logged_at = -LOG_EVERY
          @report = nil
          @ticked_at = now
        end

        # What it decided last, for the heartbeat and the Busy page; nil before.
        attr_reader :report

        # One look: backlog, verdicts, caps. Public for tests.
        def tick
          backlog = Store::Jobs::Backlog.sizes(@store, @queues)
          seconds = now - @ticked_at
          @ticked_at = now
          taken = @times.take
          changes = @classifier.observe(taken, seconds)
          caps = decide
          ahead = ahead(taken, seconds)
          @buffers.each_value { |buffer| buffer.update(caps: alone?(buffer) ? {} : caps, backlog: backlog, ahead: ahead) }
          note(changes, caps)
          @report = describe(caps, backlog)
        end

        private

        def wake = @sleeper.stop

        # The first look at once: until it, the capsules split fetches evenly.
        def run
          loop do
            @outage.attempt(@sleeper) { tick }
            break unless @sleeper.sleep(INTERVAL)
          end
        end

        # A queue whose jobs spent most of their time in CPU-bound classes runs
        # as many at once as there are usable cores.
        def decide
          @classifier.queue_shares.select { |_, share| share >= CPU_SHARE }.to_h { |queue, _| [queue, @cores] }
        end

        # Per queue, the jobs it ran in a time slice at its last second's pace.
        def ahead(taken, seconds)
          runs = Hash.new(0)
          taken.each { |(queue, _), (count, _, _)| runs[queue] += count }
          runs.transform_values { |count| (count / [seconds, 0.001].max * SLICE).ceil.clamp(0, MAX_AHEAD) }
        end

        # A capsule of one queue has no other work to hand threads to.
        def alone?(buffer) = buffer.state.keys.map { |q| Store::Layout::PartitionNames.base(q) }.uniq.size == 1

        # Logs what changed, at most one line per LOG_EVERY seconds (what
        # changes meanwhile waits for the next line).
        def note(changes, caps)
          changes.each { |klass, bound, ratio| @pending << "#{klass} #{bound ? "is" : "is no longer"} CPU-bound (CPU #{(ratio * 100).round}% of wall time)" }
          (caps.keys - @caps.keys).each { |queue| @pending << "queue #{queue} capped at #{caps[queue]} running #{(caps[queue] == 1) ? "job" : "jobs"}" }
          (@caps.keys - caps.keys).each { |queue| @pending << "queue #{queue} no longer capped" }
          @caps = caps
          return if @pending.empty? || now - @logged_at < LOG_EVERY
          @logger.info("auto-balance: #{@pending.join("; ")} (#{@cores} usable #{(@cores == 1) ? "core" : "cores"})")
          @pending = []
          @logged_at = now
        end

        def describe(caps, backlog)
          {"cores" => @cores, "busy" => @classifier.busy.round(2), "caps" => caps, "backlog" => backlog,
           "cpu_bound" => @classifier.cpu_bound,
           "ratios" => @classifier.ratios,
           "running" => @buffers.values.map(&:state).reduce({}, :merge).transform_values { |_, running, _| running }}
        end
      end
    end
  end
end
