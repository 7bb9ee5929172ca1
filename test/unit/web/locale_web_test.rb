# frozen_string_literal: true

require "test_helper"
require "deckhand/locale"
require "deckhand/batch"
require "deckhand/workflow"
require_relative "../../support/web/web_helpers"

# The dashboard in the request's language: picked with ?locale= (then kept
# in a cookie), else the browser's Accept-Language, else English; right to
# left for Arabic and Hebrew; every word of the converted screens from the
# texts, escaped like everything else.
class WebLocaleTest < Minitest::Test
  include Deckhand::WebHelpers

  LANGUAGES = Deckhand::Locale.names - ["en"]
  # The pages whose every word comes from the texts.
  CONVERTED_PAGES = %w[/ /queues /queues/mail /busy /retries /retries?q=boom /retries?q=boom&confirm=retry /dead /scheduled
    /retries/1-gone /retries/KEY /retries?view=groups /find?jid=98431 /find?jid=nowhere /find?jid= /profiles
    /limits /metrics /metrics/RecordJob /periodic /batches /batches/BID /workflows /workflows/WID].freeze
  # Names, and data the pages show as Redis and the test gave them.
  NOT_WORDS = %w[Deckhand deckhand Redis redis UTC jid JID noeviction mail RecordJob ReportJob RuntimeError boom default cpu min
    nowhere set profile your-name docs profiling md Prometheus ms weekly success ttl batches gem complete on nightly].freeze
  # Words a language writes as English does.
  SAME_WORDS = {"de" => %w[Version Clients Limits Workflows Workflow Live live Job Jobs Arguments Thread In in an all Rate Name Zone Callbacks],
                "fr" => %w[Version Clients argument arguments Arguments pause page capsules strict confirmation classes Actions minute format Total description Parent parent Options], "es" => %w[error Error No no token callbacks Callbacks Total],
                "pt" => %w[no as thread threads Thread classes token callbacks Callbacks Total]}.freeze

  def in_language(path, accept) = get(path, headers: {"HTTP_ACCEPT_LANGUAGE" => accept})

  def test_english_whatever_the_browser_asks_when_there_are_no_texts_for_it
    body = in_language("/", "da, sv;q=0.8").body
    assert_includes body, %(<html lang="en" dir="ltr" data-delimiter=",">)
    assert_includes body, ">Queues</a>"
  end

  def test_accept_language_with_q_values_chooses_the_page
    response = in_language("/queues", "da, de;q=0.9, fr;q=0.8")
    assert_includes response.body, %(<html lang="de" dir="ltr" data-delimiter=".">)
    assert_includes response.body, %(<a href="/queues" aria-current="page">Warteschlangen</a>)
    assert_includes response.body, "<title>Warteschlangen · Deckhand</title>"
    assert_equal "de", response.headers["content-language"]
  end

  def test_arabic_and_hebrew_are_right_to_left
    assert_includes in_language("/", "ar").body, %(<html lang="ar" dir="rtl")
    assert_includes in_language("/busy", "he-IL").body, %(<html lang="he" dir="rtl")
  end

  def test_the_picker_wins_and_is_remembered_in_a_cookie
    response = in_language("/?locale=fr", "de")
    assert_includes response.body, %(<html lang="fr")
    cookie = Array(response.headers["set-cookie"]).find { |c| c.start_with?("deckhand_locale=") }
    assert_equal "deckhand_locale=fr; path=/; Max-Age=31536000; SameSite=Lax", cookie
    later = get("/busy", headers: {"HTTP_ACCEPT_LANGUAGE" => "de", "HTTP_COOKIE" => "deckhand_locale=fr"})
    assert_includes later.body, %(<html lang="fr")
    refute_includes Array(later.headers["set-cookie"]).join, "deckhand_locale", "no cookie to write when it is already there"
  end

  def test_only_known_language_names_are_taken
    ["<script>", "../en", "EN", "xx", ""].each do |bad|
      response = in_language("/?locale=#{ERB::Util.url_encode(bad)}", "es")
      assert_includes response.body, %(<html lang="es"), bad
      refute_includes Array(response.headers["set-cookie"]).join, "deckhand_locale", bad
    end
    body = get("/", headers: {"HTTP_COOKIE" => "deckhand_locale=%3Cscript%3E", "HTTP_ACCEPT_LANGUAGE" => "ja"}).body
    assert_includes body, %(<html lang="ja")
  end

  def test_the_sessions_choice_counts_after_the_picker
    session = {locale: "pt-br"}
    body = get("/", headers: {"rack.session" => session, "HTTP_ACCEPT_LANGUAGE" => "de"}).body
    assert_includes body, %(<html lang="pt")
    body = get("/?locale=ru", headers: {"rack.session" => session}).body
    assert_includes body, %(<html lang="ru")
  end

  def test_the_picker_lists_every_language_in_its_own_name_and_keeps_the_query
    body = in_language("/retries?q=%3Cb%3E&page=2", "ja").body
    assert_includes body, %(<form method="get" action="/retries" class="locale-picker">)
    assert_includes body, %(<input type="hidden" name="q" value="&lt;b&gt;">)
    assert_includes body, %(<input type="hidden" name="page" value="2">)
    assert_includes body, %(<option value="ja" lang="ja" selected>日本語</option>)
    assert_includes body, %(<option value="ar" lang="ar">العربية</option>)
    assert_equal Deckhand::Locale.names.size, body.scan("<option value=").size
  end

  # No word of the converted screens is left in English: each page's text
  # and labels in each language share nothing with English's but names,
  # numbers and data.
  def test_no_english_word_is_left_on_the_converted_pages_in_any_language
    Deckhand::Client.push_bulk("class" => "RecordJob", "args" => [[1], [2], [98431]], "queue" => "mail")
    api.queue("mail").pause
    api.class_pauses.pause("ReportJob")
    a_process_running_a_job
    2.times { |i| add_to("retry", retry_job("#{i}a" * 12, "queue" => "mail")) }
    a_leaders_schedule
    batch = Deckhand::Batch.new
    batch.on(:complete, "RecordJob")
    batch.jobs { RecordJob.perform_async(1) }
    flow = a_workflow_with_a_dead_step
    CONVERTED_PAGES.map { |path| path.sub("KEY", key_of(:retries, "0a" * 12)).sub("BID", batch.bid).sub("WID", flow.id) }.each do |path|
      # The batch's and the workflow's ids are data, in any letters: out before the words are read.
      page = ->(code) { words(in_language(path, code).body.gsub(batch.bid, "").gsub(flow.id, "")) }
      english = page.call("en")
      left = LANGUAGES.to_h { |code| [code, (page.call(code) & english) - NOT_WORDS - SAME_WORDS.fetch(code, [])] }
      assert_equal LANGUAGES.to_h { |code| [code, []] }, left, "English left on #{path}"
    end
  end

  def test_numbers_and_times_in_the_language
    redis.call("SET", "stat:processed", "1234567")
    assert_includes in_language("/", "de").body, %(data-stat="processed">1.234.567</span>)
    assert_includes in_language("/", "fr").body, %(data-stat="processed">1\u202F234\u202F567</span>)
    add_to("retry", retry_job("a" * 24), score: Time.now.to_f + 3600)
    assert_match(/>in (59|60) Min\.</, in_language("/retries", "de").body)
    assert_match(/>dentro de (59|60) min</, in_language("/retries", "es").body)
  end

  def test_a_notice_after_an_action_speaks_the_language
    jids = Deckhand::Client.push_bulk("class" => "RecordJob", "args" => [[1], [2]])
    response = post("/queues/default", "action" => "delete", "jid" => jids[0], "position" => "1", "page" => "1")
    follow = get(response.headers["location"], headers: {"HTTP_COOKIE" => "deckhand_notice=#{notice_cookie(response)}", "HTTP_ACCEPT_LANGUAGE" => "es"})
    assert_includes follow.body, %(id="notice" tabindex="-1">1 trabajo eliminado</p>)
    ru = get("/queues", headers: {"HTTP_COOKIE" => "deckhand_notice=deleted.5", "HTTP_ACCEPT_LANGUAGE" => "ru"})
    assert_includes ru.body, ">5 заданий удалено</p>"
  end

  def test_names_from_redis_stay_escaped_inside_a_translated_sentence
    Deckhand::Client.push("class" => "RecordJob", "args" => [1], "queue" => "<b>x</b>")
    body = in_language("/", "ar").body
    assert_includes body, %(<a href="/queues/%3Cb%3Ex%3C%2Fb%3E">&lt;b&gt;x&lt;/b&gt;</a>)
    refute_includes body, "<b>x</b>"
  end

  # A translation is text: markup in it is shown, not obeyed, and so are the
  # values put into it, but for a link the page built.
  def test_a_translation_is_escaped_and_so_are_its_values
    page = Object.new.extend(Deckhand::Web::Helpers::Texts)
    page.instance_variable_set(:@locale, Deckhand::Locale::Catalog.new("xx", {"a" => %(<img src=x> "%{v}")}, nil))
    assert_equal "&lt;img src=x&gt; &quot;&lt;b&gt;&quot;", page.t("a", v: "<b>")
    assert_equal "&lt;img src=x&gt; &quot;<i>ok</i>&quot;", page.t("a", v: Deckhand::Web::Template::SafeHtml.new("<i>ok</i>"))
  end

  def test_a_workflows_notice_speaks_the_language
    flow = a_workflow_with_a_dead_step
    response = post("/workflows/#{flow.id}", "action" => "cancel")
    page = get(response.headers["location"], headers: {"HTTP_COOKIE" => "deckhand_notice=#{notice_cookie(response)}", "HTTP_ACCEPT_LANGUAGE" => "de"})
    assert_includes page.body, %(id="notice" tabindex="-1">Dieser Workflow war schon beendet: nichts abzubrechen</p>)
  end

  private

  # A workflow of three steps whose first died: the two after it cancelled, the workflow failed.
  def a_workflow_with_a_dead_step
    flow = Deckhand::Workflow.new("nightly")
    root = flow.add(RecordJob, 1)
    flow.add_many(RecordJob, [[2], [3]], after: root)
    flow.push
    error = JSON.generate({"error_class" => "RuntimeError", "error_message" => "boom"})
    Deckhand::Workflow.ops(Deckhand.config).step(flow.id, "d", root.jid, error)
    flow
  end

  # A schedule a leader wrote: one entry every Monday, ticked a minute ago.
  def a_leaders_schedule
    store = Deckhand::RedisHarness.store
    entries = {"weekly" => {"cron" => "30 9 * * 1", "timezone" => "UTC", "class" => "RecordJob", "queue" => "mail", "args" => [1]}}
    Deckhand::Store::Features::PeriodicState.write_schedule(store, {"leader" => "worker-1:42:a1", "entries" => entries})
    Deckhand::Store::Scripts::PeriodicLease.new(store).acquire("worker-1:42:a1", ttl_ms: 60_000)
    redis.call("HSET", "deckhand:periodic:entry:weekly", "next", Time.now.to_i + 3600, "last_tick", Time.now.to_i - 60, "last_jid", "0c" * 12)
  end

  # A server process with two capsules, running one job of the mail queue for a minute.
  def a_process_running_a_job
    identity = "worker-1:42:a1"
    capsules = {"default" => {"concurrency" => 5, "mode" => "weighted", "queues" => %w[mail], "weights" => {"mail" => 1}},
                "cpu" => {"concurrency" => 1, "mode" => "strict", "queues" => %w[mail]}}
    info = {"hostname" => "worker-1", "pid" => 42, "identity" => identity, "queues" => %w[mail], "concurrency" => 6, "capsules" => capsules}
    redis.call("SADD", "processes", identity)
    redis.call("HSET", identity, "info", JSON.generate(info), "busy", "1", "beat", Time.now.to_f.to_s)
    work = {"queue" => "mail", "payload" => {"class" => "RecordJob", "jid" => "0b" * 12, "args" => [9], "queue" => "mail"}, "run_at" => Time.now.to_f - 60}
    redis.call("HSET", "#{identity}:work", "t1", JSON.generate(work))
  end

  # The words a page shows or says (text, placeholder, title, aria-label),
  # but the data (a job as stored, its backtrace) and the scripts' JSON.
  def words(body)
    body = body.sub(/<footer>.*<\/footer>/m, "").gsub(/<(script|style|pre)\b.*?<\/\1>/m, "")
    shown = body.scan(/>([^<]+)</).flatten + body.scan(/(?:placeholder|title|aria-label)="([^"]*)"/).flatten
    # A token with a digit is data (a jid, a count), not a word.
    shown.flat_map { |text| CGI.unescapeHTML(text).scan(/[[:alnum:]'-]+/) }.grep(/\A[[:alpha:]][[:alpha:]'-]+\z/).uniq
  end
end
