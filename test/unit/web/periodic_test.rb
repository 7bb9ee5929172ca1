# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# The Periodic page and the data API behind it, on a schedule a leader wrote.
class WebPeriodicTest < Minitest::Test
  include Deckhand::WebHelpers

  def setup
    super
    store = Deckhand::RedisHarness.store
    entries = {
      "nightly" => {"cron" => "0 2 * * *", "timezone" => "Europe/Paris", "class" => "RecordJob", "queue" => "reports", "args" => ["daily"], "options" => {"retry" => 2}},
      "<script>x</script>" => {"cron" => "<b>* * * * *</b>", "timezone" => "UTC", "class" => "<img src=x>", "queue" => nil, "args" => ["</td>"]}
    }
    Deckhand::Store::Features::PeriodicState.write_schedule(store, {"leader" => "host:1:abc", "entries" => entries})
    _, @token = Deckhand::Store::Scripts::PeriodicLease.new(store).acquire("host:1:abc", ttl_ms: 60_000)
    redis.call("HSET", "deckhand:periodic:entry:nightly", "next", Time.utc(2030, 1, 2, 1).to_i, "last_tick", Time.now.to_i - 60, "last_jid", "a" * 24)
  end

  def test_the_page_lists_schedule_zone_next_and_last_run_escaped
    body = get("/periodic").body
    assert_includes body, "0 2 * * *"
    assert_includes body, "Europe/Paris"
    assert_includes body, "2030-01-02 01:00:00 UTC"
    assert_includes body, "a" * 24
    assert_includes body, "host:1:abc"
    assert_includes body, "/retries?q=#{"a" * 24}"
    refute_includes body, "<script>x"
    refute_includes body, "<img src=x>"
    refute_includes body, "<b>*"
    assert_includes body, "&lt;script&gt;x&lt;/script&gt;"
  end

  def test_pause_resume_and_enqueue_now
    assert_redirect post("/periodic/nightly", "action" => "pause"), "/periodic", notice: "periodic_paused.0"
    assert api.periodic.fetch("nightly").paused?
    assert_includes get("/periodic", headers: {"HTTP_COOKIE" => "deckhand_notice=periodic_paused.0"}).body, "Paused: its ticks pass"
    assert_redirect post("/periodic/nightly", "action" => "resume"), "/periodic", notice: "periodic_resumed.0"
    refute api.periodic.fetch("nightly").paused?
    assert_redirect post("/periodic/nightly", "action" => "enqueue"), "/periodic", notice: "periodic_enqueued.0"
    job = jobs_in("reports").first
    assert_equal ["RecordJob", ["daily"], 2], [job["class"], job["args"], job["retry"]], "the entry's job options come along"
    assert_equal job["jid"], api.periodic.fetch("nightly").manual_jid
    assert_redirect post("/periodic/%3Cscript%3Ex%3C%2Fscript%3E", "action" => "enqueue"), "/periodic", notice: "periodic_enqueued.0"
    assert_equal 1, redis.call("LLEN", "queue:default")
  end

  def test_enqueue_now_into_a_paused_queue_warns
    api.queue("reports").pause
    response = post("/periodic/nightly", "action" => "enqueue")
    assert_redirect response, "/periodic", notice: "periodic_enqueued.0.1"
    assert_includes follow(response).body, "Enqueued now; the schedule is unchanged. Warning: its queue is paused; the job waits there until the queue is resumed."
    assert_equal 1, jobs_in("reports").size
  end

  def test_unknown_entries_and_actions_change_nothing
    assert_redirect post("/periodic/nope", "action" => "pause"), "/periodic", notice: "periodic_gone.0"
    assert_equal 404, post("/periodic/nightly", "action" => "delete").status
    assert_equal 403, post_from("/periodic/nightly", {"action" => "pause"}, site: "cross-site").status
    refute api.periodic.fetch("nightly").paused?
    assert_raises(Deckhand::Error) { api.periodic.fetch("nope") }
  end

  def test_the_busy_page_names_the_leader
    assert_includes get("/busy").body, "Periodic jobs&#39; leader: <strong>host:1:abc</strong>"
  end

  include Deckhand::Web::Helpers::CronWords

  # The language CronWords writes in, as a page's Helpers::Texts gives it.
  def locale = @locale || Deckhand::Locale["en"]

  def test_common_crons_in_words
    assert_includes get("/periodic").body, "every day at 02:00"
    {"*/15 * * * * *" => "every 15 seconds", "* * * * * *" => "every second", "* * * * *" => "every minute",
     "*/5 * * * *" => "every 5 minutes", "7 * * * *" => "every hour at minute 7", "30 9 * * 1" => "every Monday at 09:30",
     "0 30 9 * * 1-5" => "every weekday at 09:30", "0 2 1 * *" => nil, "every day at 9am" => nil}.each do |cron, words|
      words ? assert_equal(words, cron_words(cron), cron) : assert_nil(cron_words(cron), cron)
    end
  end

  def test_crons_in_words_in_other_languages
    @locale = Deckhand::Locale["de"]
    assert_equal "jeden Montag um 09:30", cron_words("30 9 * * 1")
    assert_equal "alle 5 Minuten", cron_words("*/5 * * * *")
    @locale = Deckhand::Locale["ru"]
    assert_equal "каждые 5 минут", cron_words("*/5 * * * *")
    assert_equal "каждое воскресенье в 02:00", cron_words("0 2 * * 7")
  end
end
