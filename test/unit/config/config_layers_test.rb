# frozen_string_literal: true

require "test_helper"

# What the configuration leaves to the code that needs it: the development
# Redis is filled in by the default configuration's hook (not by every
# Config), the reliable-push buffer belongs to the client, and the testing
# mode tells runtime code it stands in for Redis by registering itself
# (test/unit/redis_stand_in_test.rb).
class ConfigLayersTest < Minitest::Test
  include Deckhand::TestHelpers

  def test_the_store_connects_where_the_fill_in_hook_says
    config = Deckhand::Config.new(redis: {}, environment: "development")
    seen = nil
    config.fill_in_redis { |redis, environment| (seen = [redis, environment]) && {url: Deckhand::RedisHarness.url} }
    assert_equal where(Deckhand::RedisHarness.url), config.store.location
    assert_equal [{}, "development"], seen
    config.freeze!
    assert_raises(Deckhand::ConfigError) { config.fill_in_redis { |redis, _| redis } }
  end

  def test_a_config_without_the_hook_uses_its_options_as_given
    config = Deckhand::Config.new(redis: {url: Deckhand::RedisHarness.url}, environment: "development")
    assert_equal where(Deckhand::RedisHarness.url), config.store.location
  end

  def where(url) = Deckhand::Store.new({url: url}).location

  def test_the_default_configuration_fills_in_the_development_redis
    config = Deckhand.default_config
    hook = config.instance_variable_get(:@redis_fill_in)
    refute_nil hook, "Deckhand.config would no longer find the project's development Redis"
    assert_equal({url: "redis://elsewhere:6379/1"}, hook.call({url: "redis://elsewhere:6379/1"}, "development"))
    assert_equal({}, hook.call({}, "production"))
  end

  def test_the_client_keeps_one_push_buffer_per_configuration
    config = new_config(reliable_push: true)
    buffer = Deckhand::Client::PushBuffer.for(config)
    assert_same buffer, Deckhand::Client::PushBuffer.for(config)
    refute_same buffer, Deckhand::Client::PushBuffer.for(new_config(reliable_push: true))
    refute_respond_to config, :push_buffer, "the configuration no longer builds the client's buffer"
  end

  # The Rails integration asks whether it runs in a server process; the
  # command says so when it loads, rather than being probed with defined?.
  def test_the_command_says_it_makes_a_server_process
    script = 'require "deckhand"; print Deckhand::Lifecycle.command?; require "deckhand/cli"; print Deckhand::Lifecycle.command?'
    out = IO.popen([RbConfig.ruby, "-I", File.expand_path("../../../lib", __dir__), "-e", script], err: File::NULL, &:read)
    assert_equal "falsetrue", out
  end
end
