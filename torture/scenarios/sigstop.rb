# frozen_string_literal: true

require_relative "../support/driver_redis"
module Torture
  # 8. Two servers run long jobs; one of them is frozen with SIGSTOP for longer
  # than its heartbeat TTL (a long GC pause, a starved or suspended host), then
  # resumed with SIGCONT. Its connections stay open, so nothing may be taken
  # from it: no job runs twice, none is lost, and it finishes its own jobs.
  class Sigstop < Scenario
    NUMBER = 8
    NAME = "sigstop"
    JOBS = 10

    def run
      frozen_for = size(30, 6)
      job_ms = (frozen_for + 4) * 1000
      redis_server = start_redis
      redis = Torture.redis(redis_server.url)
      fleet = new_fleet(redis_server.url)
      pair = Array.new(2) { fleet.spawn(concurrency: JOBS, wait: false) }.each { |m| fleet.ready(m) }
      push_work(client(redis_server.url), Array.new(JOBS, job_ms))
      check(wait_until(30) { @ledger.starts.size >= JOBS }, "the jobs never all started")
      frozen = pair.max_by { |m| inflight_jobs(redis, fleet.identity(m)) }
      held = inflight_jobs(redis, fleet.identity(frozen))
      ::Process.kill("STOP", frozen.pid)
      sleep frozen_for
      expired = redis.call("EXISTS", fleet.identity(frozen)).zero?
      ::Process.kill("CONT", frozen.pid)
      drained = drain(job_ms / 1000.0 + 60)
      books = @ledger.analysis
      taken = held - finished_by(frozen)
      check(drained && books[:lost].zero?, "#{books[:lost]} jobs lost")
      check(books[:duplicate_starts].zero?, "#{books[:duplicate_starts]} jobs ran twice")
      check(taken.zero?, "#{taken} jobs were taken from the frozen process")
      fleet.stop_all
      {
        "frozen_for" => secs(frozen_for), "heartbeat_ttl" => timing[:heartbeat_ttl], "record_expired" => expired,
        "jobs_held" => held, "taken" => taken, "duplicate_runs" => books[:duplicate_starts], "lost" => books[:lost]
      }
    end

    private

    # How many jobs the frozen process finished itself.
    def finished_by(member) = @ledger.finishes.count { |f| f.pid == member.pid }
  end
end
