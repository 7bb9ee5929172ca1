# frozen_string_literal: true

require "test_helper"
require_relative "../../../support/web/web_helpers"

# The headline counters on every page, and the live toggle on the pages that
# can refresh themselves (Busy, Queues, the sets).
class WebLiveTest < Minitest::Test
  include Deckhand::WebHelpers

  def test_every_page_but_the_dashboard_has_the_live_counters
    3.times { |i| add_to("retry", retry_job(format("%024d", i))) }
    %w[/busy /queues /retries /dead /scheduled /metrics /batches].each do |path|
      body = get(path).body
      assert_includes body, %(<div class="live-bar" id="live-bar" data-live-src="/stats.json" data-interval="5">), path
      assert_includes body, %(<a class="count" href="/retries"><span class="label">Retries</span> <span class="value" data-live-stat="retries">3</span></a>), path
    end
    refute_includes get("/").body, "live-bar", "the dashboard's cards say the same"
    assert_includes get("/busy?interval=1").body, %(data-interval="1")
  end

  def test_only_pages_that_refresh_have_the_toggle
    add_to("retry", retry_job("a" * 24))
    %w[/busy /queues /queues/default /retries /dead?q=x].each do |path|
      body = get(path).body
      assert_includes body, "data-live-toggle", path
      assert_includes body, %(<div id="live-region">), path
    end
    %w[/metrics /retries?view=groups /retries?q=a&confirm=delete].each do |path|
      refute_includes get(path).body, "data-live-toggle", path
    end
  end
end
