# frozen_string_literal: true

require "test_helper"
require_relative "../../bench/lib/deckhand_bench/latency_proxy"
require "support/reliability_helpers"

# A fetch that Redis ran but whose reply never reached the process leaves jobs
# in a live process's in-flight record that no thread knows about. The fetcher
# reclaims them once Redis answers again.
class LostFetchTest < Minitest::Test
  include Deckhand::ReliabilityHelpers

  def setup
    super
    uri = URI(Deckhand::RedisHarness.url)
    # Replies come back 0.5 s late: time (even on a loaded machine) to cut the connection after Redis ran a
    # fetch and before its reply arrives.
    @proxy = DeckhandBench::LatencyProxy.start(upstream_host: uri.host, upstream_port: uri.port, delay: 0.5, direction: :downstream)
    Deckhand.config = new_config(redis: {url: @proxy.url}, concurrency: 2, heartbeat_interval: 1, heartbeat_ttl: 10, timeout: 2)
  end

  def teardown
    @proxy&.stop
    super
  end

  def test_jobs_of_a_fetch_whose_reply_was_lost_go_back_and_run
    redis.call("LPUSH", "queue:default", payload("lost-reply"))
    with_server do |launcher|
      wait_for(message: "the fetch to run in Redis") { inflight_count(launcher.identity) == 1 }
      assert_operator @proxy.reset_all, :>, 0
      wait_for(timeout: 30, message: "the job to run") { Deckhand::TestJobs.runs.map(&:first) == ["lost-reply"] }
      wait_for(timeout: 30, message: "its acknowledgement") { inflight_keys(launcher.identity).empty? }
    end
    assert_equal ["lost-reply"], Deckhand::TestJobs.runs.map(&:first)
  end
end
