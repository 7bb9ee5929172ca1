# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/sidekiq_public_api_test.rb starts it):
# Sidekiq::Web as Sidekiq 7.3 has it, an app instance with its own middleware,
# and Sidekiq's addresses on Deckhand's dashboard.
require "minitest/autorun"
require "json"
require "sidekiq"
require "sidekiq/web"
require "rack/mock"
require "rack/auth/basic"

class WebAppInsideTest < Minitest::Test
  def setup
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
  end

  def get(app, path, env = {}) = Rack::MockRequest.new(app).get(path, env)

  def add(set, jid, arg)
    job = {"class" => "FilterJob", "args" => [arg], "queue" => "default", "jid" => jid}
    Sidekiq.redis { |conn| conn.zadd(set, Time.now.to_f, JSON.generate(job)) }
  end

  def test_an_instance_is_a_rack_app_with_its_own_middleware
    app = Sidekiq::Web.new
    assert_equal [], app.middlewares
    assert_equal 200, get(app, "/").status
    app.use(Rack::Auth::Basic) { |user, password| user == "ops" && password == "secret" }
    assert_equal 401, get(app, "/").status
    assert_equal 200, get(app, "/", "HTTP_AUTHORIZATION" => "Basic #{["ops:secret"].pack("m0")}").status
    assert_equal 200, get(Sidekiq::Web.new, "/").status, "another instance has only the class's middleware"
    app.middlewares.clear
    app.use(Rack::Head)
    assert_equal 200, get(app, "/").status
  end

  def test_an_instance_takes_the_class_middleware_as_it_stands_at_its_first_request
    app = Sidekiq::Web.new # made first, as a test's rack-test session makes it
    Sidekiq::Web.use(Rack::Auth::Basic) { |user, password| user == "ops" && password == "secret" }
    assert_equal 401, get(app, "/").status
    later = Sidekiq::Web.new
    assert_equal 1, later.middlewares.size
    Sidekiq::Web.middlewares.clear
    assert_equal 401, get(later, "/").status, "its copy was taken when it was first asked for"
    assert_equal 200, get(Sidekiq::Web.new, "/").status
  ensure
    Sidekiq::Web.middlewares.clear
  end

  def test_metrics_is_the_page_but_for_a_scraper_and_substr_filters_its_classes
    tally = Deckhand::Store::Records::ExecutionMetrics::Tally.new
    %w[MikeJob OtherJob].each { |klass| tally.record(klass, 3.0, false) }
    Deckhand::Store::Records::ExecutionMetrics.write(Deckhand.config.store, tally.take)
    page = get(Sidekiq::Web.new, "/metrics")
    assert_match(%r{\Atext/html}, page.headers["content-type"])
    assert_includes page.body, "MikeJob"
    filtered = get(Sidekiq::Web.new, "/metrics?substr=mike").body
    assert_includes filtered, "/metrics/MikeJob"
    refute_includes filtered, "/metrics/OtherJob"
    scrape = get(Sidekiq::Web.new, "/metrics", "HTTP_ACCEPT" => "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5")
    assert_includes scrape.body, "deckhand_enqueued_jobs"
    assert_includes get(Sidekiq::Web.new, "/metrics?format=prometheus").body, "deckhand_enqueued_jobs"
  end

  def test_a_history_beyond_the_kept_year_is_refused_as_sidekiq_refuses_its_own
    assert_equal [200, 200], ["/?days=365", "/?days=7"].map { |path| get(Sidekiq::Web.new, path).status }
    assert_equal [401, 401, 401], ["/?days=1000000", "/?days=0", "/?days=many"].map { |path| get(Sidekiq::Web.new, path).status }
  end

  def test_an_empty_set_says_none_was_found_as_sidekiqs_page_does
    assert_equal ["No retries found.", "No scheduled jobs found.", "No dead jobs found."],
      %w[/retries /scheduled /morgue].map { |path| get(Sidekiq::Web.new, path).body[%r{<p class="empty">([^<]*)</p>}, 1] }
  end

  def test_morgue_and_substr_are_the_dead_page_and_its_filter
    add("dead", "jid123dead", "mike")
    add("dead", "jid456dead", "jim")
    add("retry", "jid789retry", "mike")
    page = get(Sidekiq::Web.new, "/morgue?substr=jim")
    assert_equal 200, page.status
    assert_includes page.body, "jid456dead"
    refute_includes page.body, "jid123dead"
    assert_includes get(Sidekiq::Web.new, "/morgue?substr=").body, "jid123dead"
    refute_includes get(Sidekiq::Web.new, "/retries?substr=jim").body, "jid789retry"
  end

  def test_stats_answer_sidekiqs_json
    Sidekiq.redis do |conn|
      conn.set("stat:processed", 5)
      conn.sadd("queues", "default")
      conn.sadd("queues", "mailers")
      conn.lpush("queue:mailers", JSON.generate("class" => "X", "args" => [], "jid" => "a" * 24))
    end
    add("retry", "r1", 1)
    stats = JSON.parse(get(Sidekiq::Web.new, "/stats").body)
    assert_equal [5, 0, 1, 1, 0], stats["sidekiq"].values_at("processed", "failed", "enqueued", "retries", "default_latency")
    assert_includes stats["redis"].keys, "redis_version"
    assert stats.key?("server_utc_time")
    assert_equal({"default" => 0, "mailers" => 1}, JSON.parse(get(Sidekiq::Web.new, "/stats/queues").body))
    redirect = get(Sidekiq::Web.new, "/dashboard/stats")
    assert_equal [302, "http://example.org/stats"], [redirect.status, redirect["location"]]
  end

  def test_a_method_the_dashboard_never_answers_passes_to_the_next_route
    response = Rack::MockRequest.new(Sidekiq::Web.new).request("PATCH", "/")
    assert_equal [404, "pass"], [response.status, response[Sidekiq::Web::X_CASCADE]]
  end

  def test_head_is_the_heartbeat_reading_the_default_queue
    2.times { Sidekiq::Client.push("class" => "HeartbeatJob", "args" => []) }
    response = Rack::MockRequest.new(Sidekiq::Web.new).request("HEAD", "/")
    # The default queue's size in Sidekiq 7.3's answer; Sidekiq 8 answers with no body.
    assert_equal [200, Sidekiq::VERSION.start_with?("8.") ? "" : "2"], [response.status, response.body]
  end

  def test_queue_names_sidekiq_would_not_show_are_not_found
    app = Sidekiq::Web.new
    assert_equal 404, get(app, "/queues/onmouseover=alert()").status
    assert_equal 200, get(app, "/queues/foo_bar:123-wow.").status
    assert_equal 200, get(app, "/queues/default").status
  end

  def test_an_entry_no_longer_there_redirects_to_its_list_and_forms_redirect_with_302
    app = Sidekiq::Web.new
    {"/retries/0-gone" => "/retries", "/scheduled/0-gone" => "/scheduled", "/morgue/0-gone" => "/morgue"}.each do |path, list|
      response = get(app, path)
      assert_equal [302, "http://example.org#{list}"], [response.status, response["location"]], path
    end
    add("retry", "jid789retry", "kept")
    score = Sidekiq::RetrySet.new.first.score
    assert_equal 200, get(app, "/retries/#{score}-jid789retry").status, "an entry still there is shown"
    Sidekiq::Client.push("class" => "PausedJob", "args" => [], "queue" => "paused")
    posted = Rack::MockRequest.new(app).post("/queues/paused", "HTTP_SEC_FETCH_SITE" => "same-origin", :params => {"action" => "pause"})
    assert_equal [302, true], [posted.status, Sidekiq::Queue.new("paused").paused?]
  end
end
