# frozen_string_literal: true

require "test_helper"
require "support/reliable_push_helpers"

# The reliable-push buffer's flusher against a Redis that comes back but
# refuses what it is sent: every held job stays until Redis takes it, each
# is written once, in order, and every refusal is in the log.
class PushBufferTest < Minitest::Test
  include Deckhand::ReliablePushHelpers

  def setup
    super
    @direct = RedisClient.new(url: @server.url)
  end

  def teardown
    @direct&.close
    super
  end

  # Pushes while Redis is down (they are held), then brings it back.
  def held_pushes(config, count, queue: "default")
    @server.kill
    jids = Array.new(count) { |i| Deckhand::Client.new(config: config).push("class" => "RecordJob", "args" => [i], "queue" => queue) }
    assert_equal count, Deckhand::Client::PushBuffer.for(config).size, "the pushes are held"
    @server = redis_server(@server.port).start
    @direct.close
    @direct = RedisClient.new(url: @server.url)
    jids
  end

  def listening?(port)
    TCPSocket.new("127.0.0.1", port).close
    true
  rescue SystemCallError
    false
  end

  def queued(queue) = @direct.call("LRANGE", "queue:#{queue}", 0, -1).reverse.map { |raw| JSON.parse(raw)["jid"] }

  def test_a_refused_push_is_logged_kept_and_written_once_redis_takes_it
    @direct.call("SET", "queue:default", "not a list")
    config = config()
    jids = held_pushes(config, 3)
    wait_for(message: "the refusal in the log") { @log.string.include?("Redis refused a held push of 1 job:") }
    assert_includes @log.string, "WRONGTYPE"
    assert_equal 3, Deckhand::Client::PushBuffer.for(config).size, "the refused jobs stay held"
    @direct.call("DEL", "queue:default")
    wait_for(message: "the held pushes written") { Deckhand::Client::PushBuffer.for(config).size.zero? }
    assert_equal jids, queued("default"), "each held job once, in push order"
    assert_equal 1, @log.string.scan("Redis refused a held push").size, "a refusal is logged once, not at every try"
  end

  def test_a_push_refused_in_part_writes_again_only_the_refused_part
    @direct.call("SET", "queue:b", "not a list")
    config = config()
    @server.kill
    a, b = %w[a b].map { |queue| Deckhand::Payload.normalize({"class" => "RecordJob", "args" => [queue], "queue" => queue}) }
    assert_nil Deckhand::Client.write({"a" => [JSON.generate(a)], "b" => [JSON.generate(b)]}, [], config)
    behind = Deckhand::Client.new(config: config).push("class" => "RecordJob", "args" => [], "queue" => "a")
    @server = redis_server(@server.port).start
    @direct.close
    @direct = RedisClient.new(url: @server.url)
    # The flusher writes a's part, then counts it out of the buffer: wait for both.
    wait_for(message: "queue a's part written, b's job and the push behind it held") do
      queued("a") == [a["jid"]] && Deckhand::Client::PushBuffer.for(config).size == 2
    end
    @direct.call("DEL", "queue:b")
    wait_for(message: "the held pushes written") { Deckhand::Client::PushBuffer.for(config).size.zero? }
    assert_equal [a["jid"], behind], queued("a"), "a's job written once, the push behind it after"
    assert_equal [b["jid"]], queued("b")
  end

  # A forked child inherits the at_exit handler and a copy of the held jobs;
  # its exit must not write them a second time.
  def test_a_forked_child_does_not_write_its_parent_s_held_jobs_at_exit
    skip_on_jruby("it forks")
    config = config()
    @server.kill
    jid = Deckhand::Client.new(config: config).push("class" => "RecordJob", "args" => [1])
    buffer = Deckhand::Client::PushBuffer.for(config)
    port = @server.port
    child = fork do
      deadline = monotonic + 30
      sleep 0.01 until listening?(port) || monotonic > deadline
      buffer.send(:flush_at_exit) # what at_exit runs
      exit!(0)
    end
    @server = redis_server(port).start
    @direct.close
    @direct = RedisClient.new(url: @server.url)
    wait_for(message: "the held push written") { buffer.size.zero? }
    wait_for(message: "the child's exit") { ::Process.waitpid(child, ::Process::WNOHANG) }
    assert_equal [jid], queued("default"), "written once, by the parent"
  end

  def test_a_held_push_that_reached_too_few_replicas_is_done_and_not_pushed_again
    config = config(push_replicas: 1, push_replicas_timeout: 0.05)
    jids = held_pushes(config, 2)
    wait_for(message: "the held pushes written") { Deckhand::Client::PushBuffer.for(config).size.zero? }
    assert_match(/the push of 1 job reached the primary .* \(a held push; it is not pushed again\)/, @log.string)
    error = assert_raises(Deckhand::NotReplicated) { Deckhand::Client.new(config: config).push("class" => "RecordJob", "args" => [2]) }
    assert_equal jids + error.jids, queued("default"), "each job once, in push order"
  end
end
