# frozen_string_literal: true

require "deckhand"
require "deckhand/dev_redis"
require "deckhand/store/inflight"
require_relative "fleet"

module Torture
  # What every scenario shares: its own redis-server (fresh, in its own
  # directory), fleets of real server processes, the ledger, and the one line
  # of figures it prints. A subclass defines NUMBER, NAME and #run, which
  # returns the figures (a Hash) and adds to #failures what must not happen.
  class Scenario
    # Deckhand's defaults, and the short timings of the quick run.
    DEFAULT_TIMING = Deckhand::Config::SETTINGS.slice(:heartbeat_interval, :heartbeat_ttl, :reaper_interval).freeze
    QUICK_TIMING = {heartbeat_interval: 0.5, heartbeat_ttl: 2, reaper_interval: 0.5}.freeze

    Result = Struct.new(:number, :name, :figures, :failures, :seconds) do
      def ok? = failures.empty?

      def line
        text = figures.map { |k, v| "#{k}=#{v}" }.join(" ")
        verdict = ok? ? "ok" : "FAIL (#{failures.join("; ")})"
        "#{number} #{name}: #{text} wall=#{seconds.round}s #{verdict}"
      end
    end

    attr_reader :failures

    def initialize(quick:, ledger:, dir:, jruby: false)
      @quick = quick
      @jruby = jruby
      @ledger = ledger
      @dir = dir
      @failures = []
      @servers = []
      @fleets = []
    end

    def call
      started = now
      @ledger.reset
      figures = run
      Result.new(self.class::NUMBER, self.class::NAME, figures, @failures, now - started)
    rescue => e
      @failures << "#{e.class}: #{e.message}"
      Result.new(self.class::NUMBER, self.class::NAME, {}, @failures, now - started)
    ensure
      @fleets.each(&:stop_all)
      @servers.each(&:stop)
    end

    private

    def quick? = @quick

    def jruby? = @jruby

    def size(full, quick) = @quick ? quick : full

    def timing = @quick ? QUICK_TIMING : DEFAULT_TIMING

    # The documented recovery bound for these timings.
    # How soon a SIGKILLed process's jobs are back: two silent heartbeat
    # intervals and no connection left, then a reaper pass (Server::Recovery::Reaper).
    def bound = (2 * timing[:heartbeat_interval]) + (timing[:reaper_interval] * 1.2)

    def start_redis(name = "redis", persistent: false, extra: [], port: nil)
      server = Deckhand::DevRedis.new(dir: File.join(@dir, name), port: port, persistent: persistent, extra: extra).start
      @servers << server
      server
    end

    def new_fleet(redis_url, name: "fleet", settings: timing, timeout: 8)
      fleet = Fleet.new(dir: File.join(@dir, name), redis_url: redis_url, ledger_url: @ledger.url, settings: settings, timeout: timeout, jruby: @jruby)
      @fleets << fleet
      fleet
    end

    def client(url) = Deckhand::Client.new(config: Deckhand::Config.new(redis: {url: url}))

    def push_work(client, durations_ms, queue: "default")
      jids = client.push_bulk("class" => "Torture::WorkJob", "args" => durations_ms.zip, "queue" => queue)
      @ledger.enqueued(jids)
      jids
    end

    def wait_until(timeout, step: 0.05)
      deadline = now + timeout
      until (result = yield)
        return false if now > deadline
        sleep step
      end
      result
    end

    # Waits until every enqueued job finished; false on timeout.
    def drain(timeout, &each_poll)
      wait_until(timeout, step: 0.1) do
        each_poll&.call
        @ledger.done_count + @ledger.quarantined_count >= @ledger.enqueued_count && @ledger.missing.empty?
      end
    end

    # The SIGKILL churn the churn scenarios share: every `every` seconds, once
    # all `processes` servers are booted, one of them, picked at random, is
    # killed and another like it started, until 90 % of
    # `jobs` are done; then every job must finish within `timeout` and the
    # dead be reaped, and the fleet stops. A kill due while a replacement
    # still boots waits for it (Fleet#replace_one): the time kills waited is
    # kept in @boot_wait. Returns the seconds until every job finished.
    # On JRuby a replacement takes seconds to boot, the drain may take five
    # times as long.
    def churn(fleet, redis, jobs:, every:, random:, processes:, timeout:)
      started = now
      next_kill = now + every
      @boot_wait = 0.0
      waited = false
      drained = drain(timeout * (jruby? ? 5 : 1)) do
        @ledger.quarantined(poison_pills(redis))
        next unless now >= next_kill && @ledger.done_count < jobs * 0.9
        next waited = true unless fleet.replace_one(random: random, processes: processes)
        @boot_wait += now - next_kill if waited
        waited = false
        next_kill = now + every
      end
      drained_in = now - started
      check(drained, "jobs still unfinished after the drain timeout")
      check(wait_for_reaping(redis, fleet, bound + 30), "dead processes not reaped")
      fleet.stop_all
      drained_in
    end

    # The dead set and the fleet's owners hash, by the plain layout's
    # names (a cluster scenario's are its layout's).
    def dead_key = "dead"

    def owners_key = "deckhand:owners"

    # The jids the fleet quarantined as poison pills (the dead set is small).
    def poison_pills(redis)
      redis.call("ZRANGE", dead_key, 0, -1).filter_map do |raw|
        job = JSON.parse(raw)
        job["jid"] if job["error_class"] == "Deckhand::PoisonPill"
      end
    end

    # The jobs a process holds in flight and has not settled.
    def inflight_jobs(redis, identity, queues: ["default"])
      url = "redis://#{redis.config.host}:#{redis.config.port}/#{redis.config.db}"
      store = (@stores ||= {})[url] ||= Deckhand::Store.new({url: url}, size: 1)
      Deckhand::Store::Inflight.count(store, identity, queues)
    end

    # In-flight hashes, landing lists and owner entries still in Redis.
    def leftovers(redis)
      keys = %w[deckhand:inflight:* deckhand:landing:*].sum { |pattern| scan_count(redis, pattern) }
      keys + redis.call("HLEN", owners_key)
    end

    def scan_count(redis, pattern)
      cursor = "0"
      count = 0
      loop do
        cursor, keys = redis.call("SCAN", cursor, "MATCH", pattern, "COUNT", 1000)
        count += keys.size
        return count if cursor == "0"
      end
    end

    # Waits until the dead are reaped: no owner but the living.
    def wait_for_reaping(redis, fleet, timeout)
      wait_until(timeout, step: 0.2) do
        living = fleet.alive.map { |m| fleet.identity(m) }
        (redis.call("HKEYS", owners_key) - living).empty?
      end
    end

    def check(condition, message) = (@failures << message unless condition)

    def percentile(values, pct)
      return nil if values.empty?
      sorted = values.sort
      sorted[((pct / 100.0) * (sorted.size - 1)).round]
    end

    def secs(value) = value.nil? ? "n/a" : format("%.1fs", value)

    def now = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)
  end
end
