# frozen_string_literal: true

require "rbconfig"
require_relative "../../bench/lib/deckhand_bench/latency_proxy"
require_relative "../support/driver_redis"

module Torture
  # 18. A pusher (torture/bulk_pusher.rb, a process of its own) calls
  # perform_bulk with 5,000 jobs, five round trips of 1,000, through a TCP
  # proxy that lets the replies to some of its slices through halfway and
  # then resets the connection (LatencyProxy#cut_replies): Redis wrote those
  # jobs, the pusher never heard. A server behind works them. The pusher
  # handles a raised push as a careful caller does (keeps what the error
  # says was pushed, pushes again what it says was not); once without
  # reliable_push, once with it: a push that meets the cut is held and
  # written again when Redis answers, and, the buffer holding at most
  # reliable_push_limit jobs (1,000 by default, one round trip's), the
  # next one raises with nothing held, so the caller's handling is tried
  # there too. Every job carries an id of its own: none may be lost, none
  # may be enqueued twice.
  class CutReplyPush < Scenario
    NUMBER = 18
    NAME = "cut-reply-push"
    JOBS = 5_000
    CUTS = [2, 4, 7].freeze # which slices' round trips through the proxy lose their reply
    MODES = {"plain" => false, "reliable" => true}.freeze
    PUSHER = File.expand_path("../bulk_pusher.rb", __dir__)
    PUSHER_TIMEOUT = 90

    def run
      runs = MODES.map { |label, reliable| [label, phase(label, reliable)] }
      totals = %w[lost doubled].to_h { |key| [key, runs.sum { |_, figures| figures[key] }] }
      {"jobs" => JOBS, **totals}.merge(*runs.map { |label, figures| figures.transform_keys { |k| "#{label}_#{k}" } })
    end

    private

    def phase(label, reliable)
      @ledger.reset
      redis_server = start_redis("redis-#{label}")
      redis = Torture.redis(redis_server.url)
      fleet = new_fleet(redis_server.url, name: "fleet-#{label}")
      server = fleet.spawn(concurrency: 10, queues: ["bulk"], wait: false) # boots while the pusher pushes
      proxy = DeckhandBench::LatencyProxy.start(upstream_host: "127.0.0.1", upstream_port: redis_server.port)
      # A bulk push's slice is an LPUSH pipeline, or a MULTI transaction
      # (the push that can be asked about after a cut reply).
      proxy.cut_replies(command: %w[LPUSH MULTI], at: CUTS)
      pushed = push(label, proxy.url, reliable)
      fleet.ready(server)
      settled = settle(redis, fleet.identity(server))
      fleet.stop_all
      judge(label, pushed, settled, proxy.stats["cut"])
    ensure
      proxy&.stop
    end

    # Runs the pusher to its end; true when it exited 0.
    def push(label, url, reliable)
      log = File.join(@dir, "pusher-#{label}.log")
      env = {"REDIS_URL" => url, "TORTURE_LEDGER_URL" => @ledger.url, "TORTURE_BULK_RUN" => label,
             "TORTURE_BULK_COUNT" => JOBS.to_s, "TORTURE_RELIABLE_PUSH" => reliable ? "1" : "0"}
      pid = ::Process.spawn(env, RbConfig.ruby, "-I", File.expand_path("../../lib", __dir__), PUSHER, out: log, err: log, in: File::NULL)
      status = wait_until(PUSHER_TIMEOUT, step: 0.1) { ::Process.waitpid2(pid, ::Process::WNOHANG)&.last }
      unless status
        ::Process.kill("KILL", pid)
        ::Process.waitpid(pid)
      end
      @failures << "#{label}: the pusher failed: #{File.read(log)[-600..] || File.read(log)}" unless status&.success?
      status&.success?
    end

    # Waits until the queue is empty, the server holds nothing, and every
    # job ran (or the runs stopped growing for 3 s): true when every job ran.
    def settle(redis, identity)
      books = Torture.redis(@ledger.url)
      seen = nil
      still_since = now
      wait_until(size(120, 60), step: 0.2) do
        runs = books.call("HLEN", "ledger:runs")
        seen, still_since = runs, now if runs != seen
        idle = redis.call("LLEN", "queue:bulk").zero? && inflight_jobs(redis, identity, queues: ["bulk"]).zero?
        idle && (runs >= JOBS || now - still_since > 3)
      end
      books.call("HLEN", "ledger:runs") >= JOBS
    ensure
      books&.close
    end

    def judge(label, pushed, settled, cuts)
      ledger = Torture.redis(@ledger.url)
      runs = ledger.call("HVALS", "ledger:runs").map(&:to_i)
      pusher = ledger.call("HGETALL", "ledger:pusher")
      ledger.close
      lost = JOBS - runs.size
      doubled = runs.count { |count| count > 1 }
      failures = []
      failures << "#{lost} jobs lost" unless settled && lost.zero?
      failures << "#{doubled} jobs enqueued more than once (#{runs.sum - runs.size} extra runs)" unless doubled.zero?
      failures << "no reply was cut (#{cuts} of #{CUTS.size}): nothing was tested" if cuts.zero?
      @failures.concat(failures.map { |f| "#{label}: #{f}" }) if pushed
      {
        "lost" => lost, "doubled" => doubled, "extra_runs" => runs.sum - runs.size, "cuts" => cuts,
        "errors" => pusher.fetch("errors", 0).to_i, "told" => pusher.fetch("told", 0).to_i,
        "untold" => pusher.fetch("untold", 0).to_i, "calls" => pusher.fetch("calls", 0).to_i
      }
    end
  end
end
