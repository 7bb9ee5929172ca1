# frozen_string_literal: true

require_relative "dropin_helper"
require "support/cut_reply_proxy"

# Push failures in drop-in mode, through a proxy in front of the private
# Redis that cuts the connection before the third slice of a bulk push
# reaches Redis (inside/test_push_errors.rb holds the assertions).
class DropInPushErrorsTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_a_bulk_push_cut_partway_raises_redis_clients_error_telling_what_is_queued
    proxy = Deckhand::CutReplyProxy.start(port: Deckhand::RedisHarness.server.port)
    seen = 0
    proxy.cut_request_at { |command| command.first.casecmp?("LPUSH") && (seen += 1) == 3 }
    out, status = dropin_ruby(File.expand_path("inside/test_push_errors.rb", __dir__), env: {"REDIS_URL" => proxy.url})
    assert status.success?, out
    assert_match(/1 runs, \d+ assertions, 0 failures, 0 errors/, out)
    assert_equal 1, proxy.cuts
  ensure
    proxy&.stop
  end
end
