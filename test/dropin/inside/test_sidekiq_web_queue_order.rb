# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/sidekiq_web_queue_order_test.rb starts
# it): a queue's page at Sidekiq's addresses, `count=` jobs a page, newest
# first unless `direction=asc` says otherwise; Deckhand's own address keeps
# the order the jobs will run.
require "minitest/autorun"
require "sidekiq"
require "sidekiq/web"
require "rack/mock"

class WebQueueOrderInsideTest < Minitest::Test
  def setup
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
    (1..5).each { |n| Sidekiq::Client.push("class" => "OrderJob", "args" => [n]) }
  end

  def shown(path)
    body = Rack::MockRequest.new(Sidekiq::Web.new).get(path, "HTTP_ACCEPT" => "text/html").body
    body.scan(%r{<td class="args"><code>(\d+)</code>}).flatten.map(&:to_i)
  end

  def test_count_pages_newest_first_as_sidekiq_does
    assert_equal [5, 4], shown("/queues/default?count=2")
    assert_equal [3, 2], shown("/queues/default?count=2&page=2")
    assert_equal [1, 2], shown("/queues/default?count=2&direction=asc")
  end

  def test_deckhands_address_keeps_the_order_the_jobs_will_run
    assert_equal [1, 2, 3, 4, 5], shown("/queues/default")
    assert_equal [1, 2, 3, 4, 5], shown("/queues/default?per_page=10")
  end
end
