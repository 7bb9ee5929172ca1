# frozen_string_literal: true

require_relative "feature_jobs"
require_relative "stream"
require_relative "tick_watch"
require_relative "injector"
require_relative "census"
require_relative "../driver_redis"
require "deckhand/store/jobs/held_classes"

module Torture
  module Faults
    # The fault drill: while a stream of jobs is pushed and worked, breaks
    # Redis in one way after another (a key of the wrong type, READONLY, OOM),
    # each for a moment; then lets the stream drain, stops the servers and
    # takes the census: every jid whose push returned must be in exactly one
    # place. test/faults/ runs it short against a server in the test's
    # process; `bin/torture faults` runs it long against real server processes.
    #
    #   drill = Drill.new(redis_url: url, ledger_url: lurl, hold: 0.5)
    #   drill.run(%w[queue retry readonly], identities: -> { [identity] }, stop: -> { launcher.stop })
    #   drill.failures   # => [] when nothing was lost, doubled or stranded
    #   drill.figures    # => {"faults" => 3, "jobs" => 812, "lost" => 0, ...}
    class Drill
      # The keys each fault names; a Proc gets a live process's identity.
      KEYS = {
        "queue" => "queue:default", "queues" => "queues", "retry" => "retry", "schedule" => "schedule",
        "dead" => "dead", "stat-processed" => "stat:processed", "stat-failed" => "stat:failed",
        "processes" => "processes", "owners" => "deckhand:owners", "recoveries" => "deckhand:recoveries:default",
        "inflight" => ->(id) { "deckhand:inflight:#{id}:default" }, "landing" => ->(id) { "deckhand:landing:#{id}:default" },
        "process" => ->(id) { id }, "work" => ->(id) { "#{id}:work" },
        # The features of Setup: the throttle's hash, the fair queue's
        # tenants' jobs and tenants, the limiter's holders, wake list and
        # metrics, the periodic entry's state and the leader's lease.
        "throttle" => "deckhand:throttle:#{Setup::THROTTLED}", "fair" => "deckhand:fair:#{Setup::FAIR}",
        "tenants" => "deckhand:tenants:#{Setup::FAIR}", "limiter" => "deckhand:limit:concurrent:#{Setup::LIMITER}",
        "limiter-wake" => "deckhand:limit:concurrent:#{Setup::LIMITER}:wake",
        "limiter-metrics" => "deckhand:limit:metrics:#{Setup::LIMITER}",
        "periodic" => TickWatch::STATE, "periodic-lease" => "deckhand:periodic:leader",
        # The held set of the class paused through the drill (PausedJob).
        "held" => "deckhand:held:default:#{PausedJob.name}",
        # A priority level's list of the default queue, and its set of levels.
        "priority" => "queue:default~r#{Setup::LEVELS["urgent"]}", "priorities" => "deckhand:priorities:default"
      }.freeze
      # Every fault the drill knows, in the order a full run injects them.
      ALL = (KEYS.keys + %w[lock batch readonly oom]).freeze
      # Jobs pushed at once before Redis refuses writes.
      BACKLOG = 150
      # Faults on the keys the settle path writes (settle.lua).
      SETTLE_PATH = %w[retry dead schedule held].freeze
      # Faults met only at a tick (every whole second, when the leader
      # wakes): held until TICK_PAST after the next one.
      TICKING = %w[periodic periodic-lease].freeze
      TICK_PAST = 0.3

      # notes: what is allowed but worth a look (a job that ran twice, and
      # the faults near its end).
      attr_reader :figures, :failures, :census, :notes

      # hold: seconds a key keeps the wrong type; long_hold: seconds Redis
      # stays read-only or out of memory (long enough for an idle fetcher's
      # own look, every 2 s, to meet it).
      def initialize(redis_url:, ledger_url:, hold:, long_hold: [hold * 3, 2.5].max, pause: 0.004, drain_timeout: 30, gap: 0.2)
        @redis_url = redis_url
        @redis = Torture.redis(redis_url)
        @store = Deckhand::Store.new({url: redis_url}, size: 2)
        @ledger = Torture.redis(ledger_url)
        @injector = Injector.new(@redis)
        @hold = hold
        @long_hold = long_hold
        @pause = pause
        @drain_timeout = drain_timeout
        @gap = gap
        @failures = []
        @skipped = []
      end

      # faults: names from ALL, injected one after the other; identities: the
      # live processes' identities; stop: stops every server (their in-flight
      # work handed back) before the census.
      def run(faults, identities:, stop:)
        started = now
        @held_moved = 0
        pause_class(:pause)
        stream = Stream.new(pause: @pause).start
        ticks = TickWatch.new(@redis_url).start
        wait_until(30) { @ledger.call("HLEN", Books::SUCCEEDED) >= 20 } or @failures << "no job ran before the faults"
        # The servers learn of a pause at their next heartbeat: the faults
        # start once one of them holds a job of the paused class.
        wait_until(30) { @redis.call("ZCARD", KEYS["held"]).positive? } or @failures << "no job of the paused class was held before the faults"
        faults.each_with_index do |fault, i|
          inject(fault, identities.call, stream)
          sleep @gap
          # Half way, the held jobs go back (and run), then the class is paused again.
          %i[resume pause].each { |action| pause_class(action) } if i == faults.size / 2
        end
        stream.stop
        ticks.stop
        pause_class(:resume)
        acked = stream.acked.merge(ticks.acked)
        drained_at = now
        drained = wait_until(@drain_timeout) { drained?(acked) }
        drain_time = now - drained_at
        stop.call
        @census = Census.new(@redis, @store, @ledger).take
        judge(stream, acked, drained, drain_time, now - started)
        self
      ensure
        stream&.stop
        ticks&.stop
      end

      def close
        @redis.close
        @ledger.close
        @store.shutdown
      end

      private

      def inject(fault, identities, stream)
        # A backlog first, so that the fetchers are at work when Redis
        # starts refusing (an idle one only looks every 2 s).
        stream.burst(BACKLOG, 20) if %w[readonly oom].include?(fault)
        case fault
        when "readonly" then @injector.read_only(hold: @long_hold)
        when "oom" then @injector.out_of_memory(hold: @long_hold)
        when "lock" then lock_key.then { |key| key ? @injector.wrong_type(key, hold: @hold) : @skipped << fault }
        when "batch" then batch_key.then { |key| key ? @injector.wrong_type(key, hold: @hold) : @skipped << fault }
        else
          key = KEYS.fetch(fault) { raise ArgumentError, "no fault #{fault.inspect}; faults: #{ALL.join(", ")}" }
          key = key.call(identities.sample) if key.is_a?(Proc)
          @injector.wrong_type(key, hold: TICKING.include?(fault) ? [@hold, 1 - (Time.now.to_f % 1) + TICK_PAST].max : @hold)
        end
      end

      # Pauses or resumes PausedJob between faults (Redis answers); a resume
      # moves its held jobs back to the default queue.
      def pause_class(action)
        done = wait_until(10) do
          held = Deckhand::Store::Jobs::HeldClasses
          if action == :resume
            @held_moved += held.resume(@store, PausedJob.name, ["default"])
          else
            held.pause(@store, PausedJob.name)
          end
          true
        rescue Deckhand::Error
          false
        end
        @failures << "the class could not be #{action}d" unless done
      end

      # A unique lock held now (a unique job pushed and not yet succeeded).
      def lock_key = some_key("unique:*")

      # The jids set of a batch still running.
      def batch_key = some_key("deckhand:batch:*:jids")

      # A key matching `pattern`, looked for until one turns up (nil after 5 s).
      def some_key(pattern)
        wait_until(5) do
          cursor = "0"
          found = nil
          loop do
            cursor, keys = @redis.call("SCAN", cursor, "MATCH", pattern, "COUNT", 1000)
            break if (found = keys.first) || cursor == "0"
          end
          found
        end || nil
      end

      # Every acked job reached its end: its run succeeded, or it is dead.
      def drained?(acked)
        succeeded = @ledger.call("HKEYS", Books::SUCCEEDED).to_h { |jid| [jid, true] }
        dead = @redis.call("ZRANGE", "dead", 0, -1).to_h { |raw| [JSON.parse(raw)["jid"], true] }
        acked.all? { |jid, kind| (ENDS.fetch(kind) == :dead) ? dead[jid] : succeeded[jid] }
      rescue RedisClient::Error, JSON::ParserError
        false
      end

      def judge(stream, acked, drained, drain_time, wall)
        # Tick jobs that ran, the watch having missed their tick (two
        # enqueued in one round after a fault): checked too.
        acked = @ledger.call("HVALS", Books::TICKS).to_h { |jid| [jid, "periodic"] }.merge(acked)
        counts = @ledger.call("HGETALL", Books::COUNTS).transform_values(&:to_i)
        verdict = @census.verdict(acked.keys, stream.failed, stream.replaced)
        misplaced = acked.select { |jid, kind| @census.places[jid] != ((ENDS.fetch(kind) == :dead) ? ["dead"] : ["succeeded"]) }
        unfinished = stream.batches.reject { |bid| @redis.call("HEXISTS", "deckhand:batch:#{bid}", "success_at") == 1 }
        @failures << "lost #{verdict[:lost].size}: #{verdict[:lost].first(3).map { |j| describe(j) }.join("; ")}" unless verdict[:lost].empty?
        @failures << "doubled #{verdict[:doubled].size}: #{verdict[:doubled].first(3).map { |j| describe(j) }.join("; ")}" unless verdict[:doubled].empty?
        @failures << "stranded #{verdict[:stranded].size}" unless verdict[:stranded].empty?
        @failures << "#{unfinished.size} batches never succeeded" unless unfinished.empty?
        @failures << "#{counts["ticks_doubled"]} periodic ticks enqueued twice" if counts["ticks_doubled"].to_i.positive?
        # A push that raised must have queued nothing: the application, told
        # it failed, pushes again.
        queued = stream.failed.select { |jid| @census.places.key?(jid) }
        @failures << "#{queued.size} pushes raised although their job was queued: #{queued.first(3).map { |j| "#{describe(j)} (#{stream.why(j)})" }.join("; ")}" unless queued.empty?
        unless drained
          where = misplaced.map { |jid, kind| "#{kind} in #{@census.places[jid].join("+").then { |p| p.empty? ? "nowhere" : p }}" }.tally
          @failures << "not drained after #{@drain_timeout}s: #{misplaced.size} jobs short of their end (#{where.map { |w, n| "#{n} #{w}" }.join(", ")})" \
            "#{dead_reasons(misplaced.keys)}"
        end
        twice = @census.runs.select { |_, n| n > 1 }.keys
        @notes = twice.first(3).map { |jid| "ran twice: #{describe(jid)}" }
        @figures = {
          "faults" => @injector.count, "skipped" => @skipped.size, "jobs" => acked.size, "failed_pushes" => stream.failed.size,
          "failed_but_queued" => queued.size, "debounce_replaced" => stream.replaced.count { |jid| !@census.places.key?(jid) },
          "held_moved" => @held_moved,
          "lost" => verdict[:lost].size, "doubled" => verdict[:doubled].size, "stranded" => verdict[:stranded].size,
          "not_at_end" => misplaced.size, "duplicate_runs" => @census.duplicate_runs, "batches" => stream.batches.size,
          "batches_unfinished" => unfinished.size, "over_limit" => counts["over_limit"].to_i,
          "ticks" => acked.count { |_, kind| kind == "periodic" }, "ticks_doubled" => counts["ticks_doubled"].to_i, "drained_in" => format("%.1fs", drain_time), "drill" => format("%.0fs", wall)
        }
      end

      # Why jobs not meant to die are dead (the first three).
      def dead_reasons(jids)
        wanted = jids.to_h { |jid| [jid, true] }
        dead = @redis.call("ZRANGE", "dead", 0, -1).map { |raw| JSON.parse(raw) }.select { |job| wanted[job["jid"]] }
        return "" if dead.empty?
        reasons = dead.first(3).map do |job|
          "#{job["jid"]}: #{job["error_class"]}: #{job["error_message"].to_s[0, 160]} (retry_count #{job["retry_count"]}, overrated #{job["overrated"]})"
        end
        "; dead: #{reasons.join("; ")}"
      end

      # Where a job is, and (when it ran) the faults injected in the 5 s
      # before its run ended.
      def describe(jid)
        times = [Books::FIRST_FINISHED_AT, Books::FINISHED_AT].filter_map { |h| @ledger.call("HGET", h, jid)&.to_f }.uniq
        runs = times.map do |at|
          near = @injector.log.select { |_, began| began.between?(at - 5, at + 1) }.map(&:first)
          near.empty? ? "ended with no fault near" : "ended near #{near.join(", ")}"
        end
        "#{@census.describe(jid)}#{" #{runs.join("; ")}" unless runs.empty?}"
      end

      def wait_until(timeout)
        deadline = now + timeout
        until (result = yield)
          return false if now > deadline
          sleep 0.1
        end
        result
      end

      def now = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)
    end
  end
end
