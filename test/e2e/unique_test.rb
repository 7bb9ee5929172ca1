# frozen_string_literal: true

require_relative "e2e_helper"
require_relative "apps/unique_jobs"

# Unique jobs across real processes: two servers, two clients racing.
class UniqueE2ETest < Minitest::Test
  include Deckhand::E2EHelpers

  UNIQUE_APP = File.expand_path("apps/unique_jobs.rb", __dir__)

  # A client process: pushes the same unique job `count` times, as fast as it
  # can, and records how many pushes returned a jid.
  def client(name, count)
    script = "#{count}.times { |i| jid = E2E::UniqueJob.perform_async(\"same\"); " \
      "E2E.call(\"RPUSH\", \"e2e:pushed\", jid) if jid }; E2E.call(\"RPUSH\", \"e2e:clients\", #{name.inspect})"
    pid = ::Process.spawn({"REDIS_URL" => Deckhand::RedisHarness.url}, RbConfig.ruby, "-w", "-I", Deckhand::CliProcess::LIB, "-r", UNIQUE_APP,
      "-e", script, in: File::NULL, out: File::NULL, err: File::NULL)
    (@pids ||= []) << pid
    pid
  end

  def teardown
    (@pids || []).each do |pid|
      ::Process.kill("KILL", pid)
    rescue Errno::ESRCH
      nil
    ensure
      ::Process.wait(pid) rescue nil # rubocop:disable Style/RescueModifier -- already reaped
    end
    super
  end

  def test_two_servers_and_two_clients_pushing_the_same_job_a_thousand_times_run_it_once
    servers = [deckhand("-r", UNIQUE_APP, "-c", "5"), deckhand("-r", UNIQUE_APP, "-c", "5")]
    servers.each(&:identity)
    client("a", 1_000)
    client("b", 1_000)
    wait_for(timeout: 60, message: "both clients done") { redis.call("LLEN", "e2e:clients") == 2 }
    wait_for(message: "the one run") { redis.call("LLEN", "e2e:unique") >= 1 }
    pushed = redis.call("LRANGE", "e2e:pushed", 0, -1)
    assert_equal 1, pushed.size, "exactly one of 2,000 pushes returned a jid"
    redis.call("SET", "e2e:go", "1")
    wait_for(message: "the lock released by the success") { redis.call("KEYS", "unique:*").empty? }
    servers.each { |cli| wait_for(message: "acknowledged") { inflight_keys(cli.identity).empty? } }
    assert_equal pushed, redis.call("LRANGE", "e2e:unique", 0, -1), "the job ran once, on one server"
    assert_equal 0, redis.call("LLEN", "queue:default")
  end
end
