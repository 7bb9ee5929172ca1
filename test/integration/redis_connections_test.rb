# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require "deckhand/api"
require_relative "../support/sentinel"

# docs/redis.md against real servers: a Redis behind a real Sentinel, and a
# Redis whose ACL user Deckhand logs in as. (TLS: redis_tls_test.rb.)
class RedisConnectionsTest < Minitest::Test
  class GreetingJob
    include Deckhand::Job
  end

  def setup
    super
    @dir = Dir.mktmpdir("deckhand-connections")
    @primary = Deckhand::DevRedis.start(dir: File.join(@dir, "primary"), persistent: false)
    @admin = RedisClient.new(url: @primary.url)
  end

  def teardown
    @config&.store&.shutdown
    @sentinel&.stop
    @admin&.close
    @primary&.stop
    FileUtils.rm_rf(@dir)
    super
  end

  def test_a_push_through_sentinel_reaches_the_primary_it_names
    @sentinel = Deckhand::Sentinel.start(dir: @dir, primary_port: @primary.port)
    port = @sentinel.port
    wait_for(message: "the Sentinel to name the primary") { @sentinel.primary_port == @primary.port }
    @config = Deckhand::Config.new(redis: {name: "mymaster", sentinels: [{host: "127.0.0.1", port: port}], role: :master})

    jid = Deckhand::Client.new(config: @config).push("class" => GreetingJob.name, "args" => ["hi"])

    assert_equal "redis+sentinel://127.0.0.1:#{port}/mymaster", @config.store.location
    assert_equal [jid], @admin.call("LRANGE", "queue:default", 0, -1).map { |raw| JSON.parse(raw)["jid"] }
    assert_equal 1, Deckhand::API.new(@config).queue("default").size
  end

  def test_an_acl_user_in_the_url_or_the_options_logs_in_as_that_user
    @admin.call("ACL", "SETUSER", "deckhand", "on", ">s3cret", "~*", "&*", "+@all")
    @admin.call("ACL", "SETUSER", "default", "resetpass", ">admin-only")
    @admin.call("AUTH", "default", "admin-only")
    url = @primary.url.sub("redis://", "redis://deckhand:s3cret@")

    {"in the url" => {url: url}, "as options" => {url: @primary.url, username: "deckhand", password: "s3cret"}}.each do |how, redis|
      config = Deckhand::Config.new(redis: redis)
      Deckhand::Client.new(config: config).push("class" => GreetingJob.name, "args" => [how])
      assert_equal "deckhand", config.store.call("ACL", "WHOAMI")
      assert_equal @primary.url, config.store.location, "the location names neither user nor password"
      config.store.shutdown
    end
    assert_equal [["as options"], ["in the url"]], @admin.call("LRANGE", "queue:default", 0, -1).map { |raw| JSON.parse(raw)["args"] }
  end

  def test_a_wrong_password_is_refused_by_name_without_the_password
    @admin.call("ACL", "SETUSER", "deckhand", "on", ">s3cret", "~*", "&*", "+@all")
    @config = Deckhand::Config.new(redis: {url: @primary.url.sub("redis://", "redis://deckhand:not-it@")})

    error = assert_raises(Deckhand::CommandError) { @config.store.call("PING") }

    assert_includes error.message, "WRONGPASS"
    assert_includes error.message, "Check the credentials in REDIS_URL"
    refute_includes error.message, "not-it"
  end
end
