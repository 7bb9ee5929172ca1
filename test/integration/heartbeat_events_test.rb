# frozen_string_literal: true

require "test_helper"

# The heartbeat's events, as Sidekiq fires them: :heartbeat once, at the
# first beat that reached Redis after :startup, :beat at each beat that
# reached Redis after it; none while Redis cannot be reached.
class HeartbeatEventsTest < Minitest::Test
  def test_a_server_fires_heartbeat_once_and_beat_at_each_beat_after_startup
    seen = Queue.new
    config = new_config(heartbeat_interval: 0.05)
    config.events.on(:startup) { seen << :startup }
    config.events.on(:heartbeat) { seen << :heartbeat }
    config.events.on(:beat) { seen << :beat }
    with_server(config) do
      wait_for(message: "three beats") { seen.size >= 5 }
    end
    events = []
    events << seen.pop until seen.empty?
    assert_equal %i[startup heartbeat beat], events.first(3), "the first beat's events follow :startup"
    assert_equal 1, events.count(:heartbeat)
    assert_operator events.count(:beat), :>=, 3
  end

  def test_no_event_before_the_server_announced_itself
    seen = []
    config = new_config
    config.events.on(:heartbeat) { seen << :heartbeat }
    config.events.on(:beat) { seen << :beat }
    heartbeat = Deckhand::Server::Chores::Heartbeat.new(config: config, store: config.store, identity: "host:1:events",
      stats: Deckhand::Server::Chores::Activity.new, info: {}, on_signal: ->(_) {})
    assert heartbeat.beat
    assert_equal [], seen, "a beat before :startup fires nothing"
    heartbeat.announce!
    assert_equal %i[heartbeat beat], seen, "announced after a beat reached Redis: its events at once"
    heartbeat.announce!
    heartbeat.beat
    assert_equal %i[heartbeat beat beat], seen
  end

  def test_beats_that_fail_fire_nothing_and_the_first_that_reaches_redis_fires_heartbeat
    seen = []
    config = new_config
    config.events.on(:heartbeat) { seen << :heartbeat }
    config.events.on(:beat) { seen << :beat }
    down = Deckhand::Store.new({url: "redis://127.0.0.1:1/0", connect_timeout: 0.1})
    unreachable = Deckhand::Server::Chores::Heartbeat.new(config: config, store: down, identity: "host:1:down",
      stats: Deckhand::Server::Chores::Activity.new, info: {}, on_signal: ->(_) {})
    unreachable.announce!
    refute unreachable.beat
    refute unreachable.beat
    assert_equal [], seen, "no beat reached Redis"

    reachable = Deckhand::Server::Chores::Heartbeat.new(config: config, store: config.store, identity: "host:1:up",
      stats: Deckhand::Server::Chores::Activity.new, info: {}, on_signal: ->(_) {})
    reachable.announce!
    assert_equal [], seen
    reachable.beat
    reachable.beat
    assert_equal %i[heartbeat beat beat], seen
  end

  def test_a_block_that_raises_is_logged_and_the_beat_stands
    log = StringIO.new
    config = new_config
    config.logger = Logger.new(log)
    ran = []
    config.events.on(:beat) { raise "flush failed" }
    config.events.on(:beat) { ran << :second }
    heartbeat = Deckhand::Server::Chores::Heartbeat.new(config: config, store: config.store, identity: "host:1:raises",
      stats: Deckhand::Server::Chores::Activity.new, info: {}, on_signal: ->(_) {})
    heartbeat.announce!
    assert heartbeat.beat
    assert_equal [:second], ran
    assert_includes log.string, "beat handler raised RuntimeError: flush failed"
    assert_equal 1, redis.call("EXISTS", "host:1:raises")
  end
end
