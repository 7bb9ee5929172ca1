# frozen_string_literal: true

require "test_helper"
require "deckhand/embedded"

# The process title: what Lifecycle.title makes of the launcher, set before
# each heartbeat of a server that owns its process (drop-in mode sets
# Sidekiq's); a server embedded in another process leaves its host's
# title alone and says it is embedded in its record.
class ProcessTitleTest < Minitest::Test
  def setup
    super
    @title = $0.dup
  end

  def teardown
    Deckhand::Lifecycle.title = nil
    $0 = @title
    super
  end

  def test_a_server_takes_its_title_from_lifecycle_before_each_beat
    seen = []
    Deckhand::Lifecycle.title = ->(launcher) do
      seen << launcher
      "worker #{launcher.config.tag} [#{launcher.stats.busy} of #{launcher.config.total_concurrency} busy]"
    end
    launcher = Deckhand::Server::Launcher.new(new_config(tag: "shop", concurrency: 3))
    launcher.heartbeat.beat
    assert_equal "worker shop [0 of 3 busy]", $0
    assert_equal [launcher], seen
    assert_equal false, JSON.parse(redis.call("HGET", launcher.identity, "info"))["embedded"]
  end

  def test_without_a_title_the_process_keeps_its_own
    launcher = Deckhand::Server::Launcher.new(new_config)
    launcher.heartbeat.beat
    assert_equal @title, $0
  end

  def test_a_title_that_raises_is_logged_and_the_beat_goes_through
    log = StringIO.new
    config = new_config
    config.logger = Logger.new(log)
    Deckhand::Lifecycle.title = ->(_launcher) { raise ArgumentError, "no tag" }
    launcher = Deckhand::Server::Launcher.new(config)
    assert launcher.heartbeat.beat
    assert_includes log.string, "the process title could not be set (ArgumentError: no tag)"
    assert_equal @title, $0
    assert_equal 1, redis.call("EXISTS", launcher.identity)
  end

  def test_an_embedded_server_leaves_its_host_s_title_and_says_it_is_embedded
    Deckhand::Lifecycle.title = ->(_launcher) { "not the host's" }
    embedded = Deckhand.embed(new_config).start
    identity = embedded.identity
    assert_equal true, JSON.parse(redis.call("HGET", identity, "info"))["embedded"]
    sleep 0.05
    assert_equal @title, $0
  ensure
    embedded&.stop
  end
end
