# frozen_string_literal: true

require "test_helper"
require "stringio"
require "support/private_redis"

# A push to a full Redis (maxmemory reached, maxmemory-policy noeviction, on a
# private redis-server): it raises an error that names the cause, what was
# queued (nothing) and the fix, and nothing in the log says otherwise.
class FullRedisPushTest < Minitest::Test
  def setup
    super
    @full = Deckhand::PrivateRedis.server(:full)
    @conn = RedisClient.new(url: @full.url, timeout: Deckhand::RedisHarness::TIMEOUT)
    @conn.call("FLUSHALL")
    @log = StringIO.new
    @config = Deckhand::Config.new(redis: {url: @full.url, timeout: Deckhand::RedisHarness::TIMEOUT})
    @config.logger = Logger.new(@log)
  end

  def teardown
    @conn.call("CONFIG", "SET", "maxmemory", "0")
    @conn.close
    super
  end

  def test_a_push_refused_for_memory_names_the_cause_and_the_fix_and_queued_nothing
    client = Deckhand::Client.new(config: @config)
    client.push("class" => "RecordJob", "args" => [1])
    assert_equal "noeviction", Deckhand::Store::Connection::Info.parse(@conn.call("INFO", "memory"))["maxmemory_policy"]
    @conn.call("CONFIG", "SET", "maxmemory", "1") # under what Redis uses: every write is refused
    error = assert_raises(Deckhand::CommandError) { client.push("class" => "RecordJob", "args" => [2]) }
    assert_equal "OOM", error.code
    assert_includes error.message, "OOM command not allowed when used memory > 'maxmemory'"
    assert_includes error.message, "Redis is full: its used memory reached maxmemory, so it refuses writes"
    assert_includes error.message, "trim the dead and retry sets"
    assert_includes error.message, "raise maxmemory"
    assert_includes error.message, "Nothing was queued: Redis took none of this push's 1 job; push again"
    error = assert_raises(Deckhand::CommandError) { client.push_bulk("class" => "RecordJob", "args" => [[3], [4], [5]]) }
    assert_includes error.message, "Redis is full"
    assert_includes error.message, "0 of 3 jobs pushed"
    assert_equal [[[3], [4], [5]], []], [error.unpushed_args, error.pushed], "a bulk push says what it queued: nothing"
    error = assert_raises(Deckhand::CommandError) { client.push("class" => "RecordJob", "args" => [6], "at" => Time.now.to_f + 60) }
    assert_includes error.message, "Nothing was queued"
    @conn.call("CONFIG", "SET", "maxmemory", "0")
    assert_equal [[1]], @conn.call("LRANGE", "queue:default", 0, -1).map { |raw| JSON.parse(raw)["args"] }
    assert_equal 0, @conn.call("ZCARD", "schedule")
    refute_match(/were queued/, @log.string, "no warning calls the refused jobs queued")
  end

  # A push that wrote to two queues and was refused on one says which.
  def test_a_push_refused_in_part_says_what_was_queued
    @conn.call("SET", "queue:b", "not a list")
    store = @config.store
    error = assert_raises(Deckhand::CommandError) do
      Deckhand::Store::Jobs::Queues.push(store, {"a" => [JSON.generate("class" => "A", "jid" => "a1", "args" => [])],
                                           "b" => [JSON.generate("class" => "B", "jid" => "b1", "args" => [])]}, [])
    end
    assert_equal "WRONGTYPE", error.code
    assert_includes error.message, "1 of this push's 2 jobs was not queued (\"b\") and the other 1 was: push only the 1 job not queued again"
    assert_equal 1, @conn.call("LLEN", "queue:a")
  end
end
