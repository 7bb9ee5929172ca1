# frozen_string_literal: true

require "deckhand/api"
require "deckhand/dev_redis/local_cluster"
require_relative "../support/push_stream"
require_relative "../support/doubles"

module Torture
  # 14. A Redis Cluster of 3 primaries and two server processes (the real
  # CLI) working one queue while a client pushes to it one job at a time;
  # mid-flow the queue moves to another primary (`deckhand placement move`,
  # Store::Tags::QueueMove), then (full run) on to the third, pushes and work
  # going on throughout. During the last move's first step one server is
  # SIGKILLed and another started: the move waits until the reaper gave the
  # dead server's jobs back. Every acknowledged push must run: nothing may be
  # lost, no job may start twice unless it started again after its server
  # was killed (Doubles: its run, or the acknowledgement of its finished
  # run, died with it), no more such jobs than the reaper gave back from the
  # killed server, and nothing may be left under a tag the queue left.
  class PlacementMove < Scenario
    NUMBER = 14
    NAME = "placement-move"
    QUEUE = "default"
    PUSH_PAUSE = 0.002

    # Seconds into the last move when a server is killed.
    KILL_AFTER = 0.3

    RECOVERED = /process (\S+) .*: recovered (\d+) of its jobs/

    def run
      cluster = Deckhand::DevRedis::LocalCluster.start(dir: File.join(@dir, "cluster"), primaries: 3, replicas: 0)
      @servers << cluster
      config = Deckhand::Config.new(redis: {cluster: cluster.urls})
      fleet = new_fleet(cluster.urls.join(","), settings: timing)
      2.times { fleet.spawn(concurrency: 5, queues: [QUEUE]) }
      stream = PushStream.new(Deckhand::Client.new(config: config), [QUEUE], pause: PUSH_PAUSE).start
      flow = size(6, 1.5)
      sleep flow
      count = size(2, 1)
      moves = Array.new(count) do |n|
        killer = Thread.new { kill_one(fleet, after: KILL_AFTER) } if n == count - 1
        # A move waits for the dead server's jobs: its heartbeat TTL, then a reaper pass.
        result = Deckhand::API.new(config).queue_moves(timeout: timing[:heartbeat_ttl] * 3 + 30).move(QUEUE)
        killer&.join
        sleep flow
        result
      end
      stream.stop
      @ledger.enqueued(stream.acked.map(&:jid))
      drained = wait_until(size(120, 60), step: 0.2) { @ledger.missing.empty? }
      figures(moves, stream, fleet, config, drained)
    ensure
      config&.store&.shutdown
    end

    private

    def kill_one(fleet, after:)
      sleep after
      victim = fleet.alive.first
      fleet.kill(victim)
      fleet.spawn(concurrency: 5, queues: [QUEUE], wait: false)
    end

    # The jobs a reaper logged it gave back from the killed servers: the
    # most that may start again after the kill.
    def recovered(fleet)
      killed = fleet.kills.map(&:first)
      identities = fleet.members.filter_map { |m| m.identity if killed.include?(m.pid) }
      fleet.log_text.scan(RECOVERED).sum { |identity, count| identities.include?(identity) ? count.to_i : 0 }
    end

    def figures(moves, stream, fleet, config, drained)
      books = @ledger.analysis
      doubles = Doubles.new(@ledger.starts, fleet.kills)
      after_kill = doubles.after_kill.values.sum
      given_back = recovered(fleet)
      store = config.store
      left = moves.sum { |move| store.call("LLEN", move.from) }
      check(books[:lost].zero?, "#{books[:lost]} acknowledged pushes never ran")
      check(drained, "jobs still unfinished after the drain")
      check(doubles.unexplained.zero?, "#{doubles.unexplained} jobs started twice with no kill to explain it (#{doubles.examples.join("; ")})")
      check(after_kill <= given_back, "#{after_kill} jobs of the killed server started again, #{given_back} were given back from it")
      check(left.zero?, "#{left} jobs left under a tag the queue left")
      check(fleet.exited.empty?, "#{fleet.exited.size} server processes died")
      check(moves.map(&:to).uniq.size == moves.size, "the queue did not move to a new tag each time")
      {
        "acked" => stream.acked.size, "failed" => stream.failed.size, "lost" => books[:lost],
        "duplicates" => books[:duplicate_starts], "after_kill" => after_kill, "given_back" => given_back, "moves" => moves.size,
        "copied" => moves.map(&:jobs).join("+"), "move_time" => moves.map { |m| secs(m.seconds) }.join("+"),
        "paused" => moves.map { |m| secs(m.paused) }.join("+"),
        "left_behind" => left
      }
    end
  end
end
