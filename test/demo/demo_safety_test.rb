# frozen_string_literal: true

require "test_helper"
require "json"
require "socket"
require "tmpdir"

module Deckhand
  # bin/demo, the real script, against a Redis of this test's own that already
  # holds someone's work (a queue, the retry, dead and schedule sets, stats):
  # all of it is still there, unchanged, when the demo has run on it.
  class DemoSafetyTest < Minitest::Test
    ROOT = File.expand_path("../..", __dir__)
    TIMEOUT = 360 # bounds a hang: the demo takes about a minute, past three at load average 20

    def setup
      super
      @dir = Dir.mktmpdir("deckhand-demo-test")
      @theirs = DevRedis.start(dir: File.join(@dir, "redis"), persistent: false)
      @client = RedisClient.new(url: @theirs.url)
    end

    def teardown
      stop_demo if @pid
    ensure
      @client&.close
      @theirs&.stop
      FileUtils.rm_rf(@dir)
      super
    end

    def test_pointed_at_a_redis_the_demo_leaves_what_it_holds_alone
      plant
      before = snapshot
      output = demo("--redis", @theirs.url)

      assert_includes output, "Redis: #{@theirs.url} (given"
      assert_match(/Done in .*3591 jobs succeeded/, output)
      refute_includes output, "\r", "not a terminal: plain progress lines, no carriage returns"
      after = snapshot
      %i[queue_default queues_has_default retry schedule theirs_dead].each do |part|
        assert_equal before[part], after[part], "their #{part} changed"
      end
      assert_operator after[:processed], :>=, before[:processed] + 3591, "their processed count was reset"
      assert_operator after[:failed], :>=, before[:failed], "their failed count was reset"
      demo_dead = @client.call("ZRANGE", "dead", 0, -1).map { |raw| JSON.parse(raw)["queue"] }.count("demo-webhooks")
      assert_equal 10, demo_dead, "the demo ran on this Redis: its 10 dead webhooks are here beside theirs"
    end

    def test_without_a_redis_the_demo_runs_on_a_private_one
      plant
      before = snapshot
      # The dashboard's port taken (by this test, or whatever holds it): the demo says where it went.
      blocker = begin
        TCPServer.new("127.0.0.1", 7433)
      rescue SystemCallError
        nil
      end
      output = demo(env: {"REDIS_URL" => nil})
      assert_match(%r{Dashboard: http://127\.0\.0\.1:\d+/ \(log: tmp/demo-web\.log; port 7433 is taken}, output)

      url = output[/Redis: (redis:\S+) \(a private redis-server/, 1]
      refute_nil url, output
      refute_equal @theirs.url, url
      assert_match(/Done in .*3591 jobs succeeded/, output)
      assert_equal before, snapshot
    ensure
      blocker&.close
    end

    private

    def plant
      now = Time.now.to_f
      job = ->(jid, queue) { JSON.generate("class" => "TheirJob", "args" => [jid], "queue" => queue, "jid" => jid, "retry" => true, "created_at" => now) }
      @client.call("SADD", "queues", "default", "mailers")
      @client.call("LPUSH", "queue:default", job.call("q1", "default"), job.call("q2", "default"))
      @client.call("LPUSH", "queue:mailers", job.call("m1", "mailers"))
      @client.call("ZADD", "retry", now + 3600, job.call("r1", "default"))
      @client.call("ZADD", "schedule", now + 7200, job.call("s1", "default"))
      @client.call("ZADD", "dead", now - 60, job.call("d1", "default"))
      @client.call("SET", "stat:processed", "1234")
      @client.call("SET", "stat:failed", "56")
    end

    def snapshot
      {queue_default: @client.call("LRANGE", "queue:default", 0, -1) + @client.call("LRANGE", "queue:mailers", 0, -1),
       queues_has_default: @client.call("SMISMEMBER", "queues", "default", "mailers"),
       retry: @client.call("ZRANGE", "retry", 0, -1, "WITHSCORES"),
       schedule: @client.call("ZRANGE", "schedule", 0, -1, "WITHSCORES"),
       theirs_dead: @client.call("ZRANGE", "dead", 0, -1, "WITHSCORES").reject { |raw, _| raw.include?("demo-") },
       processed: @client.call("GET", "stat:processed").to_i,
       failed: @client.call("GET", "stat:failed").to_i}
    end

    # A demo that did not finish in time is asked to stop first, so that it
    # stops the redis-server, the server and the dashboard it started (a
    # KILL would leave them running); killed if it does not within 30 s.
    def stop_demo
      ::Process.kill("TERM", @pid)
      deadline = monotonic + 30
      until (reaped = ::Process.waitpid(@pid, ::Process::WNOHANG)) || monotonic > deadline
        sleep 0.1
      end
      return if reaped
      ::Process.kill("KILL", @pid)
      ::Process.wait(@pid)
    rescue Errno::ESRCH, Errno::ECHILD
      nil
    end

    # Runs bin/demo to its end (no terminal: it does not linger); returns its output.
    def demo(*args, env: {})
      log = File.join(@dir, "demo.log")
      @pid = ::Process.spawn(env, File.join(ROOT, "bin/demo"), *args, in: File::NULL, out: log, err: [:child, :out])
      status = wait_for(timeout: TIMEOUT, message: "bin/demo to finish") { ::Process.waitpid2(@pid, ::Process::WNOHANG)&.last }
      @pid = nil
      output = File.read(log)
      assert status.success?, "bin/demo failed:\n#{output}"
      output
    end
  end
end
