# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "erb"
require_relative "browser_harness"

# Unique locks, expired counts and encrypted bags in a real headless Chromium.
class JobOptionsBrowserTest < Minitest::Test
  include Deckhand::BrowserHarness

  def teardown
    close_page
    super
  end

  def api = Deckhand::API.new(Deckhand.config)

  def test_release_a_lock_and_see_the_masked_bag_and_the_expired_count
    Deckhand.config.encryption(active_version: 1) { "k" * 32 }
    job = {"class" => "FailJob", "args" => ["order-<7>", {"card" => "4111-secret"}], "jid" => "f" * 24, "queue" => "default",
           "retry" => true, "retry_count" => 1, "error_class" => "RuntimeError", "error_message" => "boom",
           "failed_at" => Deckhand::Payload.now, "unique_for" => 600, "encrypt" => true}
    job["unique_key"] = Deckhand::Unique.key(job)
    Deckhand::Encryption.seal!(job, Deckhand.config.encryption_keys)
    redis.call("SET", job["unique_key"], job["jid"], "EX", 600)
    redis.call("ZADD", "retry", Time.now.to_f + 60, JSON.generate(job))
    redis.call("SET", "stat:expired", "42")

    visit("/")
    assert_equal "42", page.at_css(%([data-stat="expired"])).text
    assert_no_browser_problems

    visit("/retries/#{ERB::Util.url_encode(api.retries.page(1, 1).first.key)}")
    assert_includes page.body, "[encrypted]"
    assert_includes page.at_css("pre.args").text, "order-<7>"
    refute_includes page.body, "4111-secret"
    assert_includes page.at_css(".unique-lock").text, "this job"
    screenshot("unique_lock")
    page.at_css(%(button[value="unlock"])).click
    wait_for(message: "the release's notice") { page.at_css(".notice")&.text&.include?("Unique lock released") }
    assert_includes page.at_css(".unique-lock").text, "the lock is free"
    assert_equal 0, redis.call("EXISTS", job["unique_key"])
    assert_no_browser_problems
  end
end
