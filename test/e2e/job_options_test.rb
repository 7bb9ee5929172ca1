# frozen_string_literal: true

require_relative "e2e_helper"
require "digest/sha2"

# Expiring jobs and encrypted arguments on the real CLI.
class JobOptionsE2ETest < Minitest::Test
  include Deckhand::E2EHelpers

  SECRET_APP = File.expand_path("apps/secret_jobs.rb", __dir__)
  KEY = ("k" * 32).freeze
  SECRET = "tok-5f1e9c0a7d2b4e8f"

  def test_a_job_that_expired_before_the_server_started_never_runs_and_shows_as_expired
    E2E::CountJob.set(expires_in: 0.2).perform_async(1)
    deadline = jobs_in("default").first["expires_at"]
    wait_for(message: "the deadline to pass") { Time.now.to_f > deadline + 0.05 }
    cli = boot("-c", "2")
    E2E::CountJob.set(expires_in: 600).perform_async(2)
    wait_for(message: "the fresh job") { counts.key?(2) }
    wait_for(message: "the expired count") { redis.call("GET", "stat:expired") == "1" }
    wait_for(message: "acknowledged") { inflight_keys(cli.identity).empty? }
    assert_equal({2 => 1}, counts, "the expired job never ran")
    assert_equal 0, redis.call("LLEN", "queue:default") + redis.call("ZCARD", "retry") + redis.call("ZCARD", "dead")
    cli.wait_for_log(/expired: not started/) # logged after the count: maybe a moment later
    assert_equal 1, cli.stdout.scan("expired: not started").size
  end

  def test_a_secret_bag_stays_sealed_in_redis_and_the_log_while_the_job_gets_it
    ENV["E2E_KEY_1"] = [KEY].pack("m0")
    require SECRET_APP # the test pushes with the application's configuration
    Deckhand.config.encryption(active_version: 1) { |v| (v == 1) ? KEY : nil }
    bag = {"token" => SECRET}
    E2E::SecretJob.perform_async("ok", bag)
    E2E::SecretJob.perform_async("fail", bag)
    cli = boot("-r", SECRET_APP, "-c", "2", env: {"E2E_KEY_1" => [KEY].pack("m0")})
    wait_for(message: "both runs") { redis.call("LLEN", "e2e:secret") == 2 }
    wait_for(message: "the failure in the dead set") { redis.call("ZCARD", "dead") == 1 }
    wait_for(message: "acknowledged") { inflight_keys(cli.identity).empty? }
    digest = Digest::SHA256.hexdigest(JSON.generate(bag))
    assert_equal [["fail", digest], ["ok", digest]], redis.call("LRANGE", "e2e:secret", 0, -1).map { |e| JSON.parse(e) }.sort
    assert_includes zset("dead").first.first["error_message"], "refused token [encrypted]"
    refute_includes dump, SECRET
    refute_includes cli.output, SECRET
  ensure
    ENV.delete("E2E_KEY_1")
  end

  # Every value of every key, read by type.
  def dump
    redis.call("KEYS", "*").map do |key|
      case redis.call("TYPE", key)
      when "string" then redis.call("GET", key)
      when "list" then redis.call("LRANGE", key, 0, -1)
      when "hash" then redis.call("HGETALL", key)
      when "set" then redis.call("SMEMBERS", key)
      when "zset" then redis.call("ZRANGE", key, 0, -1)
      end
    end.to_s
  end
end
