# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# Periodic times in the entry's own zone beside UTC, and the markup the
# keyboard relies on: a skip link, a focusable notice and list rows.
class WebZoneAndKeyboardTest < Minitest::Test
  include Deckhand::WebHelpers

  def schedule(entries)
    store = Deckhand::RedisHarness.store
    Deckhand::Store::Features::PeriodicState.write_schedule(store, {"leader" => "host:1:abc", "entries" => entries})
  end

  def test_a_zoned_entry_shows_its_next_run_in_its_zone_and_in_utc
    schedule(
      "nightly" => {"cron" => "0 2 * * *", "timezone" => "America/New_York", "class" => "RecordJob", "args" => []},
      "tokyo" => {"cron" => "0 9 * * *", "timezone" => "+09:00", "class" => "RecordJob", "args" => []},
      "plain" => {"cron" => "0 3 * * *", "timezone" => "UTC", "class" => "RecordJob", "args" => []},
      "odd" => {"cron" => "0 3 * * *", "timezone" => "Mars/Olympus<b>", "class" => "RecordJob", "args" => []}
    )
    at = Time.utc(2030, 1, 2, 7).to_i # 02:00 in New York (EST), 16:00 in Tokyo
    %w[nightly tokyo plain odd].each { |name| redis.call("HSET", "deckhand:periodic:entry:#{name}", "next", at) }
    body = get("/periodic").body
    assert_includes body, %(<span class="zone-time">2030-01-02 02:00:00 EST</span> <span class="meta zone-time">2030-01-02 07:00:00 UTC</span>)
    assert_includes body, %(<span class="zone-time">2030-01-02 16:00:00 +09:00</span> <span class="meta zone-time">2030-01-02 07:00:00 UTC</span>)
    # UTC, and a zone nobody knows, show UTC alone
    assert_equal 2, body.scan(%(<td data-label="Next run" class="next-run"><span class="zone-time">2030-01-02 07:00:00 UTC</span></td>)).size
    assert_includes body, "Mars/Olympus&lt;b&gt;"
  end

  def test_every_page_starts_with_a_skip_link_to_the_main_content
    %w[/ /busy /retries /periodic].each do |path|
      body = get(path).body
      assert_includes body, %(<body>\n<a class="skip" href="#main">Skip to content</a>), path
      assert_includes body, %(<main id="main" tabindex="-1">), path
    end
  end

  def test_the_notice_and_the_rows_can_take_focus_after_an_action
    add_to("retry", retry_job("k" * 24))
    body = get("/retries", headers: {"HTTP_COOKIE" => "deckhand_notice=retried.1"}).body
    assert_includes body, %(<p class="notice" role="status" id="notice" tabindex="-1">)
    assert_includes body, %(<tr tabindex="-1">)
  end

  def test_busy_and_periodic_stack_on_a_phone_with_their_key_field_first
    redis.call("SADD", "processes", "h:1:a")
    redis.call("HSET", "h:1:a", "info", "{}", "busy", "0", "beat", Time.now.to_f.to_s)
    busy = get("/busy").body
    assert_includes busy, %(<table class="processes stack">)
    schedule("nightly" => {"cron" => "0 2 * * *", "timezone" => "UTC", "class" => "RecordJob", "args" => []})
    assert_includes get("/periodic").body, %(<table class="periodic stack">)
    css = get("/assets/deckhand.css").body
    assert_includes css, "table.stack td.key { order: -1; }"
  end
end
