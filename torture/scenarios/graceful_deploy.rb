# frozen_string_literal: true

module Torture
  # 7. Rolling deploys while long jobs run: a new server starts, the oldest is
  # sent TERM, again and again. Jobs that outlive the shutdown timeout are
  # handed back and run again elsewhere; none may be lost, and every server
  # must exit cleanly within its timeout.
  class GracefulDeploy < Scenario
    NUMBER = 7
    NAME = "graceful-deploy"
    SLACK = 5 # seconds beyond the timeout, for boot-free shutdown work on a shared machine

    def run
      timeout = size(8, 2)
      jobs = job_count
      rounds = deploy_rounds
      redis_server = start_redis
      fleet = new_fleet(redis_server.url, timeout: timeout)
      2.times { fleet.spawn(concurrency: 5, wait: false) }
      fleet.alive.each { |m| fleet.ready(m) }
      random = Random.new(jobs)
      push_work(client(redis_server.url), Array.new(jobs) { random.rand(200..(timeout * 1500)) })
      exits = Array.new(rounds) do
        sleep timeout
        fleet.spawn(concurrency: 5)
        oldest = fleet.alive.min_by(&:spawned_at)
        [fleet.term(oldest), oldest.status]
      end
      drained = drain(bound + (jobs * timeout))
      figures(exits, timeout, drained)
    end

    private

    def job_count = size(200, 60)

    def deploy_rounds = size(10, 4)

    def figures(exits, timeout, drained)
      books = @ledger.analysis
      seconds = exits.map(&:first)
      unclean = exits.count { |_, status| !status&.success? }
      check(drained && books[:lost].zero?, "#{books[:lost]} jobs lost")
      check(unclean.zero?, "#{unclean} servers did not exit cleanly")
      check(seconds.max <= timeout + SLACK, "a server took #{seconds.max.round(1)}s to stop (timeout #{timeout}s)")
      {
        "deploys" => exits.size, "lost" => books[:lost], "duplicate_runs" => books[:duplicate_starts],
        "term_to_exit_p50" => secs(percentile(seconds, 50)), "max" => secs(seconds.max),
        "timeout" => secs(timeout), "unclean_exits" => unclean
      }
    end
  end
end
