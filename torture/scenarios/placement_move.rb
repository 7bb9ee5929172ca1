# frozen_string_literal: true

require "deckhand/api"
require "deckhand/dev_redis/local_cluster"
require_relative "../support/push_stream"

module Torture
  # 14. A Redis Cluster of 3 primaries and two server processes (the real
  # CLI) working one queue while a client pushes to it one job at a time;
  # mid-flow the queue moves to another primary (`deckhand placement move`,
  # Store::Tags::QueueMove), then (full run) on to the third, pushes and work
  # going on throughout. During the last move's first step one server is
  # SIGKILLed and another started: the move waits until the reaper gave the
  # dead server's jobs back. Every acknowledged push must run: nothing may be
  # lost, no job may start twice except those the killed server had started
  # and not finished, and nothing may be left under a tag the queue left.
  class PlacementMove < Scenario
    NUMBER = 14
    NAME = "placement-move"
    QUEUE = "default"
    PUSH_PAUSE = 0.002

    # Seconds into the last move when a server is killed.
    KILL_AFTER = 0.3

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

    # Jobs the killed servers had started and not finished: the only ones
    # that may start twice.
    def orphans(fleet)
      finished = @ledger.finishes.to_h { |f| [[f.jid, f.pid], true] }
      fleet.kills.sum do |pid, at|
        @ledger.starts.select { |s| s.pid == pid && s.at <= at && !finished[[s.jid, pid]] }.map(&:jid).uniq.size
      end
    end

    def figures(moves, stream, fleet, config, drained)
      books = @ledger.analysis
      orphaned = orphans(fleet)
      store = config.store
      left = moves.sum { |move| store.call("LLEN", move.from) }
      check(books[:lost].zero?, "#{books[:lost]} acknowledged pushes never ran")
      check(drained, "jobs still unfinished after the drain")
      check(books[:duplicate_starts] <= orphaned, "#{books[:duplicate_starts]} jobs started twice, #{orphaned} were running on the killed server")
      check(left.zero?, "#{left} jobs left under a tag the queue left")
      check(fleet.exited.empty?, "#{fleet.exited.size} server processes died")
      check(moves.map(&:to).uniq.size == moves.size, "the queue did not move to a new tag each time")
      {
        "acked" => stream.acked.size, "failed" => stream.failed.size, "lost" => books[:lost],
        "duplicates" => books[:duplicate_starts], "killed_running" => orphaned, "moves" => moves.size,
        "copied" => moves.map(&:jobs).join("+"), "move_time" => moves.map { |m| secs(m.seconds) }.join("+"),
        "paused" => moves.map { |m| secs(m.paused) }.join("+"),
        "left_behind" => left
      }
    end
  end
end
