# frozen_string_literal: true

require_relative "../support/faults/drill"

module Torture
  # 11. The fault drill (torture/support/faults/drill.rb) against two real
  # server processes: while a stream of jobs of every kind is pushed and
  # worked, each key a user or a bug could make the wrong type is made so for
  # a moment, then Redis is made read-only and out of memory; every round
  # injects every fault. Once the stream drains and the servers stop, every
  # pushed jid must be in exactly one place.
  class FaultDrill < Scenario
    NUMBER = 11
    NAME = "faults"
    APP = File.expand_path("../faults_app.rb", __dir__)

    def run
      rounds = size(3, 1)
      redis_server = start_redis
      fleet = new_fleet(redis_server.url, settings: timing.merge(app: APP, yaml: "scheduler_interval: 0.2\n"))
      2.times { fleet.spawn(concurrency: 5, wait: false) }
      fleet.alive.each { |m| fleet.ready(m) }
      Deckhand.config = Deckhand::Config.new(redis: {url: redis_server.url})
      drill = Torture::Faults::Drill.new(redis_url: redis_server.url, ledger_url: @ledger.url, hold: size(1.0, 0.4),
        pause: size(0.002, 0.004), drain_timeout: size(120, 60))
      drill.run(Torture::Faults::Drill::ALL * rounds, identities: -> { fleet.alive.filter_map { |m| fleet.identity(m) } },
        stop: -> { fleet.stop_all })
      drill.failures.each { |failure| check(false, failure) }
      crashed = fleet.members.count { |m| m.status && !m.status.success? }
      check(crashed.zero?, "#{crashed} server processes did not exit cleanly")
      drill.figures.merge("rounds" => rounds, "server_crashes" => crashed)
    ensure
      drill&.close
    end
  end
end
