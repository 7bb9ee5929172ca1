# frozen_string_literal: true

require_relative "../support/faults/drill"

module Torture
  # 11. The fault drill (torture/support/faults/drill.rb) against two real
  # server processes: while a stream of jobs of every kind is pushed and
  # worked (a throttled queue, a fair queue, a limiter and a periodic entry
  # among them), each key a user or a bug could make the wrong type is made so for
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
      2.times { fleet.spawn(concurrency: 5, queues: Torture::Faults::Setup::QUEUES, wait: false) }
      fleet.alive.each { |m| fleet.ready(m) }
      Deckhand.config = Deckhand::Config.new(redis: {url: redis_server.url}, fair_queues: Torture::Faults::Setup::FAIR_QUEUES)
      drill = Torture::Faults::Drill.new(redis_url: redis_server.url, ledger_url: @ledger.url, hold: size(1.0, 0.3),
        gap: size(0.2, 0.1), pause: size(0.002, 0.004), drain_timeout: size(120, 60))
      drill.run(Torture::Faults::Drill::ALL * rounds, identities: -> { fleet.alive.filter_map { |m| fleet.identity(m) } },
        stop: -> { fleet.stop_all })
      drill.failures.each { |failure| check(false, failure) }
      drill.notes.each { |note| warn "11 faults: #{note}" }
      log = fleet.log_text
      drill.census.runs.select { |_, n| n > 1 }.keys.first(3).each do |jid|
        log.lines.grep(/#{jid}/).first(8).each { |line| warn "11 faults:   #{line.strip[0, 300]}" }
      end
      # No server dies here: a recovery would be of a live process's jobs.
      reaped = log.lines.grep(/recovered \d+ of its jobs/)
      reaped.first(3).each { |line| warn "11 faults: #{line.strip}" }
      check(reaped.empty?, "#{reaped.size} live processes had their jobs recovered by a reaper")
      died = log.lines.grep(/ crashed/)
      died.first(3).each { |line| warn "11 faults: #{line.strip[0, 300]}" }
      check(died.empty?, "#{died.size} server threads died on a fault")
      crashed = fleet.members.count { |m| m.status && !m.status.success? }
      check(crashed.zero?, "#{crashed} server processes did not exit cleanly")
      drill.figures.merge("rounds" => rounds, "reaped_live" => reaped.size, "threads_died" => died.size, "server_crashes" => crashed)
    ensure
      drill&.close
    end
  end
end
