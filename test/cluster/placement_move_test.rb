# frozen_string_literal: true

require "test_helper"
require "stringio"
require "deckhand/api"
require "deckhand/cli/placement_command"
require "deckhand/cli/top_command"
require "deckhand/server"
require_relative "../support/cluster_helpers"

# Moving a queue to another primary while a server works it and a client
# pushes to it (Store::Tags::QueueMove): every job runs once, scheduled entries
# follow, and `deckhand placement` shows, plans and makes the moves. A fair
# queue's tenants' jobs: fair_queue_move_test.rb.
class ClusterPlacementMoveTest < Minitest::Test
  include Deckhand::ClusterHelpers

  Slots = Deckhand::Store::Tags::QueuePlacement::Slots
  PLACEMENT = Deckhand::Store::Layout::Cluster::PLACEMENT
  Moves = Deckhand::Store::Tags::QueuePlacement::Moves

  def setup
    super
    Deckhand::TestJobs.reset
  end

  def primary_of(tag) = Slots.read(Deckhand.config.store).primary_of(tag)

  def test_a_queue_moves_while_jobs_are_pushed_and_worked_and_each_runs_once
    Deckhand.config = new_config(heartbeat_interval: 0.2, concurrency: 4, queues: %w[mail])
    client = Deckhand::Client.new(config: Deckhand.config)
    pusher = Deckhand::Client.new(config: new_config) # a process without a heartbeat: it follows by its own refresh
    client.push("class" => "RecordJob", "queue" => "mail", "args" => [-1], "at" => Time.now.to_f + 3600)
    old_tag = keys.queue("mail")
    pushed = 0
    stop = false
    with_server do
      feeder = Thread.new do
        until stop
          pusher.push("class" => "RecordJob", "queue" => "mail", "args" => [pushed])
          pushed += 1
          sleep 0.002
        end
      end
      wait_for(message: "jobs to run before the move") { Deckhand::TestJobs.runs.size > 50 }
      result = Deckhand::API.new.queue_moves(timeout: 30).move("mail")
      wait_for(message: "jobs to run after the move") { Deckhand::TestJobs.runs.size > pushed - 5 && pushed > result.jobs + 100 }
      stop = true
      feeder.join
      feeder = nil
      wait_for(message: "every job to run") { Deckhand::TestJobs.runs.size >= pushed }

      new_tag = cluster.call("HGET", PLACEMENT, "mail")
      assert_equal result.to, new_tag
      refute_equal primary_of(old_tag), primary_of(new_tag), "the queue is on another primary"
      assert_equal 1, result.entries, "the scheduled job came along"
      assert_equal 1, cluster.call("ZCARD", "#{new_tag}:schedule")
      assert_equal 0, cluster.call("EXISTS", old_tag, "#{old_tag}:schedule")
      assert_empty Deckhand::API.new.queue_moves.under_way
    ensure
      stop = true
      feeder&.join
    end
    args = Deckhand::TestJobs.runs.map { |_, (arg)| arg }
    assert_equal (0...pushed).to_a, args.sort, "every pushed job ran exactly once"
  end

  def test_a_move_waits_for_every_process_and_an_old_one_undoes_it
    keys.queue("mail")
    cluster.call("SADD", keys::PROCESSES, "old:1:abc")
    cluster.call("HSET", keys.process("old:1:abc"), "beat", Time.now.to_f, "info", "{}")
    error = assert_raises(Deckhand::PlacementError) { Deckhand::API.new.queue_moves(timeout: 5).move("mail") }
    assert_match(/does not follow queue moves; finish deploying/, error.message)
    assert_empty Deckhand::API.new.queue_moves.under_way, "the queue is worked again where it was"
    assert_equal "{queue:mail}", cluster.call("HGET", PLACEMENT, "mail")
  end

  # Movers that died in a batch: one after writing the jobs under the new
  # tag, before releasing them from the old slot; one after taking retry
  # entries, before writing them. Run again, the move writes each once.
  def test_a_move_cut_short_in_its_copy_finishes_each_job_once
    store = Deckhand.config.store
    from = keys.queue("mail")
    to = Deckhand::Store::Layout::Cluster.candidate("mail", 1)
    jobs = Array.new(5) { |n| JSON.generate("class" => "RecordJob", "queue" => "mail", "args" => [n], "jid" => "j#{n}" * 6) }
    cluster.call("LPUSH", from, *jobs) # j0 oldest, at the tail
    cluster.call("ZADD", "#{from}:retry", 10, "retrying", 20, "later")
    scripts = Deckhand::Store::Scripts
    id, *taken = scripts::MoveTake.new(store).call(from, "list", 2, "dead-mover-1")
    assert_equal ["dead-mover-1", jobs[4], jobs[3]], [id, *taken], "the two newest, held"
    assert_equal 2, scripts::MovePut.new(store).call(to, "#{to}:moved:#{id}", "list", taken, 60)
    scripts::MoveTake.new(store).call("#{from}:retry", "zset", 1, "dead-mover-2")
    Deckhand::Store::Tags::QueuePlacement::Moves.record(store, "mail", "from" => from, "to" => to, "step" => "copy")
    cluster.call("HSET", PLACEMENT, "mail", to)

    result = Deckhand::API.new.queue_moves(timeout: 5).move("mail")

    assert_equal [5, 2], [result.jobs, result.entries], "the batch already written counts, once"
    assert_equal jobs.reverse, cluster.call("LRANGE", to, 0, -1), "each job once, the oldest next to be fetched"
    assert_equal [["retrying", 10.0], ["later", 20.0]], cluster.call("ZRANGE", "#{to}:retry", 0, -1, "WITHSCORES")
    held = ["", ":retry"].flat_map { |set| ["#{from}#{set}", "#{from}#{set}:moving:batch", "#{from}#{set}:moving:id"] }
    assert_equal 0, cluster.call("EXISTS", *held), "nothing left under the old tag, no batch held"
    assert_operator cluster.call("TTL", "#{to}:moved:dead-mover-1"), :>, 0, "the marker expires by itself"
    assert_empty Deckhand::API.new.queue_moves.under_way
  end

  # Servers learn from their beat which queues not to fetch: those in a
  # move's first step, not those being copied (worked under the new tag).
  def test_a_beat_pauses_a_queue_only_in_its_move_s_first_step
    store = Deckhand.config.store
    moves = Deckhand::Store::Tags::QueuePlacement::Moves
    record = {info: "{}", running: {}, inflight: 0, rtt_us: 0, quiet: false, rss_kb: 0, ttl: 60, placement: 0}
    epoch = moves.record(store, "mail", "from" => "{queue:mail}", "to" => "{queue~1:mail}", "step" => "pause")
    moves.record(store, "low", "from" => "{queue:low}", "to" => "{queue~1:low}", "step" => "copy")
    beat = Deckhand::Store::Records::Heartbeats.beat(store, "h:1:a", counts: [0, 0], metrics: {}, record: record)
    assert_equal ["mail"], beat.paused
    assert_equal [epoch + 1, ["mail"]], beat.placement
    assert_equal "0", cluster.call("HGET", keys.process("h:1:a"), "placement"), "the epoch the process follows, in its record"
  end

  # One move or sweep of retired tags at a time in the fleet: while another
  # holds the move lock (a mover that died, its lock about to expire), a
  # sweep moves nothing and a move waits its turn, then runs; each frees
  # the lock it took.
  def test_a_sweep_and_a_move_wait_their_turn_for_the_move_lock
    Deckhand.config = new_config
    old = Deckhand::Store::Layout::Cluster.tag("mail")
    now = Deckhand::Store::Layout::Cluster.candidate("mail", 2)
    cluster.call("HSET", PLACEMENT, "mail", now)
    cluster.call("HSET", Moves::RETIRED, old, "mail")
    job = JSON.generate("class" => "RecordJob", "queue" => "mail", "args" => [1], "jid" => "a" * 24)
    cluster.call("LPUSH", old, job)
    Deckhand::Client.push("class" => "RecordJob", "queue" => "reports", "args" => [2])
    cluster.call("SET", Moves::LOCK, "a mover that died", "PX", 700)
    sweep = Deckhand::Store::Tags::RetiredSweep.new(Deckhand.config.store)

    assert_equal({}, sweep.call, "the lock is another's")
    assert_equal [job], cluster.call("LRANGE", old, 0, -1)
    started = monotonic
    result = Deckhand::API.new.queue_moves(timeout: 10).move("reports")
    assert_operator monotonic - started, :>=, 0.3, "it waited for the lock"
    assert_equal [result.to, 1], [cluster.call("HGET", PLACEMENT, "reports"), result.jobs]
    assert_equal 0, cluster.call("EXISTS", Moves::LOCK), "the move freed its lock"
    assert_equal({"mail" => 1}, sweep.call)
    assert_equal [job], cluster.call("LRANGE", now, 0, -1)
    assert_equal 0, cluster.call("EXISTS", Moves::LOCK), "the sweep freed its lock"
  end

  # A process that does not follow placement pushes under the tag a move
  # retired: the servers' sweep moves its jobs to the queue's current tag,
  # a job at a priority level to its level's list there.
  def test_jobs_pushed_under_a_retired_tag_are_swept_to_the_current_one
    old = Deckhand::Store::Layout::Cluster.tag("mail")
    now = Deckhand::Store::Layout::Cluster.candidate("mail", 2)
    cluster.call("HSET", PLACEMENT, "mail", now)
    cluster.call("HSET", Deckhand::Store::Tags::QueuePlacement::Moves::RETIRED, old, "mail")
    job = JSON.generate("class" => "RecordJob", "queue" => "mail", "args" => [1], "jid" => "a" * 24)
    cluster.call("LPUSH", old, job)
    cluster.call("ZADD", "#{old}:schedule", 99, job)
    urgent = JSON.generate("class" => "RecordJob", "queue" => "mail", "args" => [2], "jid" => "b" * 24, "priority" => -2)
    cluster.call("SADD", "#{old}:priorities", "-2")
    cluster.call("LPUSH", "#{old}~r-2", urgent)
    log = StringIO.new
    config = new_config
    config.logger = Logger.new(log)
    sweeper = Deckhand::Server::Chores::RetiredSweeper.build(config: config, store: config.store)
    assert_equal({old => ["mail", 2]}, Deckhand::API.new.queue_moves.stranded, "the queue's job and the one at a level")

    assert_equal({"mail" => 3}, sweeper.sweep)
    assert_equal [job], cluster.call("LRANGE", now, 0, -1)
    assert_equal [job], cluster.call("ZRANGE", "#{now}:schedule", 0, -1)
    assert_equal [urgent], cluster.call("LRANGE", "#{now}~r-2", 0, -1), "a job at a level, to its level under the current tag"
    assert_equal ["-2"], cluster.call("SMEMBERS", "#{now}:priorities")
    assert_equal 0, cluster.call("EXISTS", old, "#{old}:schedule", "#{old}~r-2")
    assert_match(/3 job\(s\) of queue mail were pushed under a tag the queue moved away from/, log.string)
    assert_equal({}, sweeper.sweep, "nothing more")
    assert_equal({}, Deckhand::API.new.queue_moves.stranded)
  end

  def test_top_shows_each_queue_s_primary_and_each_primary_s_share
    %w[mail default].each { |queue| Deckhand::Client.push("class" => "RecordJob", "queue" => queue, "args" => [1]) }
    snapshot = Deckhand::CLI::Top::Snapshot.read(Deckhand::API.new)
    lines = Deckhand::CLI::Top::Screen.new(width: 120, height: 30).lines(snapshot, location: "cluster", live: false)
    shares = Deckhand::API.new.placement.primaries.map { |p| "#{p.address} #{(p.share * 100).round}%" }
    assert_equal "Primaries  #{shares.join("  ")}", lines.grep(/\APrimaries/).first
    %w[mail default].each do |queue|
      assert_match(/  on #{Regexp.escape(primary_of(keys.queue(queue)))}, no process\z/, lines.grep(/\A#{queue}\s/).first)
    end
  end

  def test_the_command_shows_plans_and_rebalances
    primaries = Slots.read(Deckhand.config.store).primaries
    crowded = %w[a b c d].to_h do |queue|
      [queue, (0..256).map { |n| Deckhand::Store::Layout::Cluster.candidate(queue, n) }.find { |tag| primary_of(tag) == primaries.first }]
    end
    cluster.call("HSET", PLACEMENT, *crowded.flatten)
    crowded.each { |queue, tag| cluster.call("LPUSH", tag, JSON.generate("class" => "RecordJob", "queue" => queue, "args" => [queue], "jid" => queue * 24)) }
    url = Deckhand::RedisClusterHarness.urls.join(",")

    out = run_command("--redis", url)
    assert_match(/#{Regexp.escape(primaries.first)}\s+100\.0 %  a b c d/, out)

    out = run_command("rebalance", "--dry-run", "--redis", url)
    assert_equal 2, out.scan("would move").size, out
    assert_equal crowded, cluster.call("HGETALL", PLACEMENT), "a dry run moves nothing"

    out = run_command("rebalance", "--redis", url)
    assert_equal 2, out.scan(/^moved \w: .* 1 queued jobs/).size, out
    placed = cluster.call("HGETALL", PLACEMENT)
    assert_equal [1, 1, 2], placed.values.group_by { |tag| primary_of(tag) }.values.map(&:size).sort
    placed.each { |queue, tag| assert_equal [queue], cluster.call("LRANGE", tag, 0, -1).map { |raw| JSON.parse(raw)["args"].first } }
    assert_match(/balanced/, run_command("rebalance", "--redis", url))
  end

  private

  def run_command(*argv)
    out = StringIO.new
    err = StringIO.new
    status = Deckhand::CLI::PlacementCommand.run(argv, out: out, err: err)
    assert_equal 0, status, err.string
    out.string
  end
end
