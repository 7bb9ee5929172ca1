# frozen_string_literal: true

require "test_helper"
require "rbconfig"
require "deckhand/api"
require_relative "../support/cluster_helpers"

# Cluster mode places each new queue on the primary holding the fewest
# queues and records it in {deckhand}:placement, so every process agrees and
# keeps agreeing; queues created before placement stay where they are.
class ClusterPlacementTest < Minitest::Test
  include Deckhand::ClusterHelpers

  # The benchmark's queues: hashed by name they sit 4/1/1 on three primaries.
  QUEUES = %w[default mail reports critical low bulk].freeze
  Slots = Deckhand::Store::Tags::QueuePlacement::Slots
  Unplaced = Deckhand::Store::Layout::Cluster
  PLACEMENT = Deckhand::Store::Layout::Cluster::PLACEMENT

  def store = Deckhand.config.store

  def slots = Slots.read(store)

  def placed = cluster.call("HGETALL", PLACEMENT)

  def test_six_new_queues_spread_two_by_two_over_three_primaries
    unplaced = QUEUES.group_by { |queue| slots.primary_of(Unplaced.tag(queue)) }.values.map(&:size).sort
    assert_equal [1, 1, 4], unplaced, "by their names alone the queues land lumpily"

    QUEUES.each { |queue| Deckhand::Client.push("class" => "RecordJob", "queue" => queue, "args" => [queue]) }

    assert_equal QUEUES.sort, placed.keys.sort
    by_primary = QUEUES.group_by { |queue| slots.primary_of(placed.fetch(queue)) }
    assert_equal [2, 2, 2], by_primary.values.map(&:size)
    QUEUES.each { |queue| assert_equal 1, cluster.call("LLEN", placed[queue]), "#{queue}'s job is under its tag" }
    assert_equal "{queue:default}", placed["default"], "the first queue takes its own name where it can"
    assert_equal QUEUES.sort, Deckhand::Store::Jobs::Queues.names(store), "the queues set names them"
    assert_equal QUEUES.sort, Deckhand::API.new.queues.map(&:name).sort
  end

  def test_the_api_reports_each_primarys_queues_and_share
    QUEUES.each { |queue| keys.queue(queue) }
    placement = Deckhand::API.new.placement
    assert_equal slots.primaries, placement.primaries.map(&:address)
    assert_equal QUEUES.sort, placement.primaries.flat_map(&:queues).sort
    assert_equal [0.333] * 3, placement.primaries.map(&:share)
    assert_in_delta 0.333, placement.busiest.share
    placement.primaries.each do |primary|
      primary.queues.each { |queue| assert_equal primary.address, slots.primary_of(keys.queue(queue)) }
    end
  end

  # After its first push a queue's tag comes from memory: a push sends what
  # it sent before placement, SADD and LPUSH, and at most every
  # QueuePlacement::REFRESH seconds a GET of the placement epoch (did a
  # queue move?).
  def test_pushes_after_the_first_read_nothing_of_the_placement
    client = Deckhand::Client.new(config: Deckhand.config)
    %w[default mail].each { |queue| client.push("class" => "RecordJob", "queue" => queue, "args" => [0]) }
    primaries = Deckhand::RedisClusterHarness.cluster.primaries
    primaries.each { |node| node_call(node, "CONFIG", "RESETSTAT") }
    started = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)
    20.times { |n| client.push("class" => "RecordJob", "queue" => n.even? ? "default" : "mail", "args" => [n]) }
    elapsed = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) - started
    calls = Hash.new(0)
    primaries.each do |node|
      node_call(node, "INFO", "commandstats").scan(/^cmdstat_(\w+(?:\|\w+)?):calls=(\d+)/) { |name, n| calls[name] += n.to_i }
    end
    calls.delete("config|resetstat")
    # The test's own connections, and a replica's REPLCONF ACK (once a second:
    # counted when the pushes take longer, as on a loaded machine or JRuby).
    own = calls.keys.select { |name| name.start_with?("info") || name == "hello" || name == "replconf" }
    epoch_reads = calls.delete("get").to_i
    assert_operator epoch_reads, :<=, (elapsed / Deckhand::Store::Tags::QueuePlacement::REFRESH).ceil
    assert_equal({"sadd" => 20, "lpush" => 20}, calls.except(*own))
  end

  def test_the_slot_of_a_key_is_the_one_redis_computes
    keys = ["{queue:default}", "{queue~3:mail}", "{queue:a}:retry", "plain", "{}x", "a{b", "{queue:é}"]
    keys.each { |key| assert_equal cluster.call("CLUSTER", "KEYSLOT", key), Slots.of(key), key }
  end

  # Two processes pushing to a queue no one has placed yet, at the same
  # moment: one choice is recorded, both push to it.
  def test_two_processes_pushing_to_a_new_queue_at_once_agree_on_its_tag
    %w[default mail].each { |queue| keys.queue(queue) } # so "race" has a choice to make
    pushers = Array.new(2) { spawn_pusher("race", 50, gate: true) }
    wait_for(message: "both pushers ready") { cluster.call("GET", "{gate}:ready").to_i == 2 }
    cluster.call("LPUSH", "{gate}", "go", "go")
    tags = pushers.map { |pusher| finish(pusher) }

    assert_equal 1, tags.uniq.size, "the processes used #{tags.inspect}"
    assert_equal tags.first, placed["race"]
    assert_equal 100, cluster.call("LLEN", tags.first)
  end

  # Many processes (stores with their own memory) placing six new queues at
  # once still spread them 2/2/2: a choice made before another queue was
  # recorded is made again.
  def test_queues_placed_at_once_by_many_processes_still_spread_evenly
    configs = QUEUES.map { new_config }
    gate = Queue.new
    threads = QUEUES.zip(configs).map do |queue, config|
      Thread.new do
        gate.pop
        config.store.layout.queue(queue)
      end
    end
    QUEUES.size.times { gate << :go }
    threads.each(&:join)

    assert_equal [2, 2, 2], QUEUES.group_by { |queue| slots.primary_of(placed.fetch(queue)) }.values.map(&:size)
    QUEUES.zip(configs).each { |queue, config| assert_equal placed[queue], config.store.layout.queue(queue) }
  ensure
    configs&.each { |config| config.store.shutdown }
  end

  def test_a_choice_made_before_another_queue_was_placed_is_refused
    place = Deckhand::Store::Scripts::Place.new(store)
    assert_equal "{queue~1:a}", place.call("a", "{queue~1:a}", seen: 0)
    assert_nil place.call("b", "{queue~2:b}", seen: 0), "one queue was placed since the count"
    assert_equal "{queue~2:b}", place.call("b", "{queue~2:b}", seen: 1)
    assert_equal "{queue~1:a}", place.call("a", "{queue:a}", seen: 2), "the first writer wins"
    assert_equal "{queue~5:c}", place.call("c", "{queue~5:c}", seen: nil), "seen: nil records it anyway"
  end

  # A restarted process (nothing in memory) reads the recorded tag.
  def test_jobs_pushed_before_and_after_a_restart_land_in_one_list
    %w[default mail reports critical].each { |queue| keys.queue(queue) }
    first = finish(spawn_pusher("bulk", 5))
    refute_equal Unplaced.tag("bulk"), first, "the test wants a queue placed away from its unplaced tag"
    second = finish(spawn_pusher("bulk", 5))

    assert_equal first, second
    assert_equal 10, cluster.call("LLEN", first)
    assert_equal 10, Deckhand::API.new.queue("bulk").size
  end

  # A queue created before placement (listed in the queues set, its jobs
  # under {queue:<name>}) stays there, even on the busiest primary.
  def test_a_queue_that_existed_before_placement_keeps_its_keys
    busiest = slots.primary_of(Unplaced.tag("old"))
    2.times { |n| cluster.call("HSET", PLACEMENT, "q#{n}", candidate_on(busiest, "q#{n}")) }
    cluster.call("SADD", Unplaced::QUEUES, "old")
    cluster.call("LPUSH", "{queue:old}", JSON.generate("class" => "RecordJob", "queue" => "old", "args" => ["old"], "jid" => "0123456789abcdef01234567"))

    assert_equal "{queue:old}", keys.queue("old")
    assert_equal "{queue:old}", placed["old"], "recorded where it is, for good"
    RecordJob.set(queue: "old").perform_async("new")
    assert_equal 2, Deckhand::API.new.queue("old").size
    with_server(new_config(queues: %w[old], concurrency: 1)) do
      wait_for(message: "both jobs") { Deckhand::TestJobs.runs.size == 2 }
    end
    assert_equal [["new"], ["old"]], Deckhand::TestJobs.runs.map(&:last).sort
  end

  def test_a_queue_known_only_by_its_sets_keeps_its_keys
    busiest = slots.primary_of(Unplaced.tag("gone"))
    2.times { |n| cluster.call("HSET", PLACEMENT, "q#{n}", candidate_on(busiest, "q#{n}")) }
    cluster.call("ZADD", "{queue:gone}:dead", 1, JSON.generate("class" => "RecordJob", "queue" => "gone", "args" => []))

    assert_equal "{queue:gone}:dead", keys.dead_set("gone")
  end

  def test_a_name_that_cannot_be_a_hash_tag_is_refused_before_anything_is_written
    error = assert_raises(Deckhand::ConfigError) { keys.queue("a}b") }
    assert_match(/Rename the queue/, error.message)
    assert_empty placed
  end

  private

  # The first candidate tag of `queue` served by `primary`.
  def candidate_on(primary, queue)
    (1..).lazy.map { |n| "{queue~#{n}:#{queue}}" }.find { |tag| slots.primary_of(tag) == primary }
  end

  # A process that pushes `count` jobs to `queue` (after the gate opens, when
  # `gate`) and prints the queue's key.
  def spawn_pusher(queue, count, gate: false)
    script = <<~RUBY
      require "deckhand"
      config = Deckhand::Config.new(redis: {cluster: ENV.fetch("NODES").split(",")})
      store = config.store
      if #{gate}
        store.call("INCR", "{gate}:ready")
        store.with { |conn| conn.blocking_call(30, "BLPOP", "{gate}", 25) }
      end
      client = Deckhand::Client.new(config: config)
      #{count}.times { |n| client.push("class" => "RecordJob", "queue" => #{queue.inspect}, "args" => [n]) }
      puts store.layout.queue(#{queue.inspect})
    RUBY
    reader, writer = IO.pipe
    pid = Process.spawn({"NODES" => Deckhand::RedisClusterHarness.urls.join(",")}, RbConfig.ruby, "-I", File.expand_path("../../lib", __dir__),
      "-e", script, out: writer, err: writer)
    writer.close
    [pid, reader]
  end

  def finish((pid, reader))
    output = reader.read
    _, status = Process.wait2(pid)
    assert_predicate status, :success?, output
    output.lines.last.chomp
  ensure
    reader.close
  end
end
