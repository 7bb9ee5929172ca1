# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# The Busy page marks a process whose host clock is more than a second off
# Redis' (what its heartbeat measured), and counts "ago" by Redis' clock.
class WebBusyClockTest < Minitest::Test
  include Deckhand::WebHelpers

  Record = Deckhand::Store::Records::ProcessRecord

  def beat(identity, clock:)
    store = Deckhand.config.store
    store.pipelined do |pipe|
      Record.write(pipe, store.layout, identity, info: JSON.generate("hostname" => identity.split(":").first, "pid" => 1,
        "concurrency" => 2, "queues" => ["default"]), running: {}, inflight: 0, rtt_us: 100, quiet: false, rss_kb: 1,
        ttl: 60, clock: clock, now: Time.now)
    end
  end

  def test_a_process_whose_host_is_412_s_ahead_of_redis_is_marked
    beat("skewed:1:aa", clock: -412.3)
    beat("synced:1:bb", clock: 0.0004)
    page = get("/busy").body
    assert_includes page, ">clock +412 s</span>"
    assert_includes page, "fix the host&#39;s time synchronization (NTP)"
    assert_equal 1, page.scan(/>clock [+-]\d+ s</).size, "only the skewed process is marked"
  end
end
