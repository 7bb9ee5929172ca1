# frozen_string_literal: true

require_relative "e2e_helper"
require "support/reliability_helpers"
require "deckhand/api"
require_relative "apps/balance_jobs"

# A SIGKILLed auto-balanced process holding fetched jobs of a capped queue
# (waiting for their turn) loses none: recovery returns them with its other
# in-flight jobs, and a survivor runs each. Only jobs the victim finished in
# its last moments may run twice (at-least-once): their acknowledgement waits
# up to half the fetch window to ride with others, so it was still on its way
# at the kill. Jobs record their jid when they finish, so one running at the
# kill shows once.
class AutoBalanceKillTest < Minitest::Test
  include Deckhand::E2EHelpers
  include Deckhand::ReliabilityHelpers

  APP = File.expand_path("apps/balance_jobs.rb", __dir__)
  TTL = 1
  THREADS = 6
  # How many of the victim's last finished jobs may have been unacknowledged
  # at the kill: its threads finish 2 ms jobs, each several in the window
  # and a round trip, more when the machine is loaded.
  RECENT = THREADS * 10

  def setup
    super
    wait_for_redis_uptime(TTL)
    @config = config_file("heartbeat_interval: 0.2\nheartbeat_ttl: #{TTL}\nauto_balance: true\n")
  end

  def worker
    cli = deckhand("-C", @config, "-c", THREADS.to_s, "-q", "cpu", "-q", "io", app: APP)
    cli.identity
    cli
  end

  def test_a_killed_balanced_process_loses_none_of_the_jobs_it_held_back
    jids = Deckhand::Client.push_bulk("class" => "E2E::SpinJob", "queue" => "cpu", "args" => Array.new(3000) { [2] }) +
      Deckhand::Client.push_bulk("class" => "E2E::NapJob", "queue" => "io", "args" => Array.new(1500) { [20] })
    victim = worker
    wait_for(timeout: 60, message: "the cpu queue capped") do
      Deckhand::API.new(Deckhand.config).processes.find(victim.identity)&.balance&.dig("caps", "cpu")
    end
    cap = Deckhand::Server::Balance::Cores.usable
    wait_for(message: "capped jobs held back") { inflight_count(victim.identity, ["cpu"]) > cap + 1 }
    victim.signal("KILL")
    victim.wait_exit(timeout: 5)
    finished = redis.call("LLEN", "e2e:ran") # by the victim
    worker
    wait_for(timeout: 180, message: "every job run") { (jids - redis.call("LRANGE", "e2e:ran", 0, -1)).empty? }
    ran = redis.call("LRANGE", "e2e:ran", 0, -1)
    twice = ran.tally.select { |_, n| n > 1 }
    assert twice.values.all?(2), "no job ran more than twice: #{twice.inspect}"
    early = twice.keys.select { |jid| ran.index(jid) < finished - RECENT }
    assert_empty early, "only jobs among the victim's last #{RECENT} finished ran again (of #{finished}): #{twice.inspect}"
    assert_equal jids.sort, ran.uniq.sort
  end
end
