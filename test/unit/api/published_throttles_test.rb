# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "deckhand/cli/top/snapshot"
require "deckhand/cli/top/screen"

# Servers publish the throttles and capsules they enforce with their
# heartbeat, so a dashboard or `deckhand top` without the application's
# configuration shows them, with their slots and where they come from.
class PublishedThrottlesTest < Minitest::Test
  def api = Deckhand::API.new(Deckhand.config)

  def publish(identity, queues: ["exports"], throttles: {}, beat: Time.now.to_f, partitions: nil)
    info = {"queues" => queues, "throttles" => throttles}
    info["partitions"] = partitions if partitions
    redis.call("SADD", "processes", identity)
    redis.call("HSET", identity, "info", JSON.generate(info), "busy", "0", "beat", beat.to_s)
  end

  def test_a_running_server_publishes_its_throttles_and_capsules
    config = new_config(concurrency: 2, heartbeat_interval: 0.05, throttle: {"exports" => {concurrency: 2}})
    with_server(config) do |launcher|
      throttle = wait_for(message: "the published throttle") { api.throttles.first }
      assert_equal "exports", throttle.queue
      assert_equal({"concurrency" => 2}, throttle.limit)
      assert_equal :servers, throttle.source
      assert_equal [launcher.identity], throttle.publishers
      process = api.processes.find(launcher.identity)
      assert_equal({"exports" => {"concurrency" => 2}}, process.throttles)
      assert_equal({"concurrency" => 2, "mode" => "strict", "queues" => ["default"], "weights" => {"default" => 0}}, process.capsules["default"])
    end
  end

  def test_a_running_server_publishes_its_partitioned_queues
    config = new_config(concurrency: 2, heartbeat_interval: 0.05, partitions: {"exports" => 3}, throttle: {"exports" => {concurrency: 3}})
    with_server(config) do |launcher|
      process = wait_for(message: "the published record") { api.processes.find(launcher.identity) }
      assert_equal({"exports" => 3}, process.partitions)
    end
  end

  # A dashboard without the application's `partitions` setting adds up the
  # slots of every partition the servers publish, and refuses what they
  # would refuse.
  def test_a_partitioned_queue_published_by_the_servers_shows_as_one
    publish("h:1:a", throttles: {"exports" => {"concurrency" => 3}}, partitions: {"exports" => 3})
    publish("h:2:b", throttles: {"exports" => {"concurrency" => 3}}, partitions: {"exports" => 3, "bad" => 99, "odd" => "x"})
    %w[exports exports~p1 exports~p2].each { |list| redis.call("HSET", "deckhand:throttle:#{list}", "~held", 1, "h:1:a", 1) }
    assert_equal [["exports", 3]], api.throttles.map { |t| [t.queue, t.held] }
    assert_equal 3, api.throttle("exports").held
    assert_equal %w[exports exports~p1 exports~p2], api.throttle("exports").lists
    assert_equal({"exports" => 3}, api.processes.find("h:2:b").partitions, "counts out of range are left out")
    error = assert_raises(Deckhand::ConfigError) { api.throttle("exports").set(concurrency: 2) }
    assert_match(/concurrency 2 cannot be split over its 3 partitions/, error.message)
    error = assert_raises(Deckhand::ConfigError) { api.throttle("exports~p1").set(concurrency: 2) }
    assert_match(/"exports~p1" is a partition of queue "exports"/, error.message)
    assert_equal 1, api.throttle("mailers").lists.size, "a queue no process partitions has one list"
  end

  def test_run_time_limits_beat_the_servers_which_beat_the_local_configuration
    Deckhand.config.throttle = {"exports" => {concurrency: 9}, "local" => {rate: 5}}
    publish("h:1:a", throttles: {"exports" => {"concurrency" => 2}})
    by_queue = api.throttles.to_h { |t| [t.queue, t] }
    assert_equal({"concurrency" => 2}, by_queue["exports"].limit)
    assert_equal :servers, by_queue["exports"].source
    assert_equal :local, by_queue["local"].source
    api.throttle("exports").set(concurrency: 4)
    assert_equal [{"concurrency" => 4}, :runtime], api.throttle("exports").then { |t| [t.limit, t.source] }
    api.throttle("exports").remove
    assert_nil api.throttle("exports").limit
  end

  def test_disagreeing_servers_and_stale_ones
    publish("h:1:a", throttles: {"exports" => {"concurrency" => 2}})
    publish("h:2:b", throttles: {"exports" => {"concurrency" => 2}})
    publish("h:3:c", throttles: {"exports" => {"concurrency" => 5}})
    publish("h:4:d", throttles: {"old" => {"concurrency" => 1}}, beat: Time.now.to_f - 120)
    throttles = api.throttles
    assert_equal ["exports"], throttles.map(&:queue), "a stale process publishes nothing"
    assert_equal({"concurrency" => 2}, throttles.first.limit)
    assert_equal %w[h:1:a h:2:b], throttles.first.publishers.sort
    assert throttles.first.disagree?
  end

  def test_a_sidekiq_process_publishes_no_throttle
    redis.call("SADD", "processes", "h:1:a")
    redis.call("HSET", "h:1:a", "info", JSON.generate("queues" => ["default"], "throttles" => "nonsense"), "busy", "0", "beat", Time.now.to_f.to_s)
    assert_empty api.throttles
  end

  def test_top_shows_the_published_throttle_with_its_slots_and_unworked_queues
    publish("h:1:a", throttles: {"exports" => {"concurrency" => 2}})
    redis.call("HSET", "deckhand:throttle:exports", "~held", 2, "h:1:a", 2)
    Deckhand::Client.push("class" => "RecordJob", "args" => [1], "queue" => "exports")
    Deckhand::Client.push("class" => "RecordJob", "args" => [1], "queue" => "mailers")
    api.queue("mailers").pause
    Deckhand::Client.push("class" => "RecordJob", "args" => [1], "queue" => "reports")
    snapshot = Deckhand::CLI::Top::Snapshot.read(api)
    lines = Deckhand::CLI::Top::Screen.new(width: 120, height: 30).lines(snapshot, location: "redis://x", live: false)
    assert_match(/\Aexports\s.*  throttled 2\/2 slots\z/, lines.grep(/\Aexports/).first)
    assert_match(/  paused, no process\z/, lines.grep(/\Amailers/).first)
    assert_match(/  no process\z/, lines.grep(/\Areports/).first)
  end
end
