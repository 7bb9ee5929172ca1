# frozen_string_literal: true

require "test_helper"
require "support/reliable_push_helpers"

# Reliable push: a steady stream of pushes goes on through a Redis restart;
# every jid a push returned reaches its queue, in order, none twice.
class ReliablePushTest < Minitest::Test
  include Deckhand::ReliablePushHelpers

  def test_pushes_during_a_redis_restart_all_arrive_in_order
    client = Deckhand::Client.new(config: config)
    jids = []
    pushing = Thread.new do
      600.times do |i|
        jids << client.push("class" => "RecordJob", "args" => [i])
        sleep 0.002
      end
    end
    wait_for(message: "the first pushes") { jids.size >= 100 }
    @server.kill
    wait_for(message: "pushes held while Redis is away") { Deckhand::Client::PushBuffer.for(client.instance_variable_get(:@config)).size >= 20 }
    @server = redis_server(@server.port).start
    pushing.join
    buffer = Deckhand::Client::PushBuffer.for(client.instance_variable_get(:@config))
    wait_for(message: "the held pushes written") { buffer.size.zero? }
    direct = RedisClient.new(url: @server.url)
    queued = direct.call("LRANGE", "queue:default", 0, -1).reverse.map { |raw| JSON.parse(raw)["jid"] }
    direct.close
    assert_equal 600, jids.compact.size, "every push returned a jid"
    missing = jids - queued
    assert_empty missing, "#{missing.size} pushed jobs never reached Redis"
    # A push whose reply was lost as Redis died is held in doubt and asked
    # about once Redis is back (its mark was persisted with its jobs, or
    # neither was): written once, never twice.
    assert_equal jids, queued, "pushed jobs reach their queue in push order, each once"
    assert_includes @log.string, "holding pushed jobs until it answers"
    assert_includes @log.string, "the jobs held meanwhile are written"
  end

  def test_past_the_limit_a_push_raises_and_nothing_is_dropped
    client = Deckhand::Client.new(config: config(reliable_push_limit: 5))
    @server.kill
    held = Array.new(5) { |i| client.push("class" => "RecordJob", "args" => [i]) }
    error = assert_raises(Deckhand::ConnectionError) { client.push("class" => "RecordJob", "args" => [5]) }
    assert_match(/5 pushed jobs already wait for it \(reliable_push_limit 5\); this push was not accepted/, error.message)
    @server = redis_server(@server.port).start
    buffer = Deckhand::Client::PushBuffer.for(client.instance_variable_get(:@config))
    wait_for(message: "the held pushes written") { buffer.size.zero? }
    direct = RedisClient.new(url: @server.url)
    queued = direct.call("LRANGE", "queue:default", 0, -1).reverse.map { |raw| JSON.parse(raw)["jid"] }
    assert_equal held, queued, "the held jobs, in order, and not the refused one"
    direct.close
  end
end
