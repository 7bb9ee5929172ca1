# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# A failed job's page leads with what went wrong; times read both ways;
# Busy explains its two counts.
class WebDetailTest < Minitest::Test
  include Deckhand::WebHelpers

  def test_the_error_comes_before_the_arguments_and_big_arguments_fold
    backtrace = Deckhand::Payload::Backtrace.compress(["app/jobs/x.rb:9:in `perform'"])
    add_to("retry", retry_job("a" * 24, "args" => ["q" * 5000], "error_class" => "Net::ReadTimeout", "error_backtrace" => backtrace))
    body = get("/retries/#{ERB::Util.url_encode(key_of(:retries, "a" * 24))}").body
    error = body.index(%(<div class="error" id="error">))
    assert error, "an error block"
    assert_operator error, :<, body.index("Net::ReadTimeout</strong>") + 1
    assert_operator body.index(%(<pre class="backtrace">)), :<, body.index("<h3>Arguments</h3>")
    assert_includes body, %(<details class="args"><summary>), "5 kB of arguments start folded"
    assert_includes body, "(5,008 characters: show all)"
  end

  def test_small_arguments_show_open
    add_to("retry", retry_job("b" * 24))
    body = get("/retries/#{ERB::Util.url_encode(key_of(:retries, "b" * 24))}").body
    assert_includes body, %(<pre class="args">[\n  &quot;#{"b" * 24}&quot;\n]</pre>)
    assert_match(%r{<time datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC</time> <span class="meta">\([^)]+ ago\)</span>}, body, "exact UTC first in details")
  end

  # A tap focuses them (tabindex -1), but Tab skips them: each row would
  # add two stops on the way to its buttons.
  def test_list_times_can_be_tapped_for_the_exact_time
    add_to("dead", retry_job("c" * 24))
    assert_match(/<time datetime="[^"]+" title="\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC" tabindex="-1">/, get("/dead").body)
    refute_match(/<time [^>]*tabindex="0"/, get("/dead").body)
  end

  def test_busy_explains_in_flight_against_busy
    redis.call("SADD", "processes", "h:1:a")
    redis.call("HSET", "h:1:a", "info", "{}", "busy", "0", "beat", Time.now.to_f.to_s)
    assert_includes get("/busy").body, %(<p class="note" id="busy-vs-inflight"><strong>Busy</strong> is how many)
  end

  def test_a_quieted_process_loses_its_quiet_button_at_once
    redis.call("SADD", "processes", "h:1:a")
    redis.call("HSET", "h:1:a", "info", "{}", "busy", "0", "beat", Time.now.to_f.to_s)
    assert_includes get("/busy").body, %(<button name="signal" value="quiet">Quiet</button>)
    post("/busy", "signal" => "quiet", "identity" => "h:1:a")
    assert_includes get("/busy").body, %(data-confirm="Quiet all 1 process? They finish their jobs and take no more.")
    body = get("/busy").body
    assert_includes body, %(<span class="badge warn">quiet sent</span>)
    refute_includes body, %(<button name="signal" value="quiet">Quiet</button>)
  end
end
