# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/sidekiq_web_forms_test.rb starts it):
# the forms of Sidekiq 7's dashboard posted to Sidekiq::Web, and the CSRF
# check they pass where Sidekiq's would and no further.
require "minitest/autorun"
require "json"
require "sidekiq"
require "sidekiq/web"
require "rack/mock"

class WebFormsInsideTest < Minitest::Test
  # A session in a Hash the test can read, standing in for Rack::Session.
  class HashSession
    def initialize(app, store)
      @app = app
      @store = store
    end

    def call(env) = @app.call(env.merge("rack.session" => @store))
  end

  SAME_ORIGIN = {"HTTP_SEC_FETCH_SITE" => "same-origin"}.freeze

  def setup
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
    @session = {}
    @app = Sidekiq::Web.new
  end

  def post(path, params = {}, env = SAME_ORIGIN, app = @app) = Rack::MockRequest.new(app).post(path, env.merge(params: params))

  def add(set, jid, queue: "default", score: Time.now.to_f)
    job = {"class" => "FormsJob", "args" => [jid], "queue" => queue, "jid" => jid}
    Sidekiq.redis { |conn| conn.zadd(set, score, JSON.generate(job)) }
    "#{score}-#{jid}"
  end

  def jids(set) = set.map(&:jid).sort

  def test_a_retry_is_retried_deleted_or_killed_by_its_score_and_jid
    one, two, three = %w[r1 r2 r3].map { |jid| add("retry", jid) }
    response = post("/retries", {"key" => [one], "retry" => "Retry"}, SAME_ORIGIN.merge("HTTP_REFERER" => "http://example.org/retries?page=2"))
    assert_equal [302, "http://example.org/retries?page=2"], [response.status, response["location"]]
    assert_equal ["r1"], Sidekiq::Queue.new.map(&:jid)
    assert_equal 302, post("/retries/#{two}", "delete" => "Delete").status
    assert_equal 302, post("/retries/#{three}", "kill" => "Kill").status
    assert_equal [[], ["r3"]], [jids(Sidekiq::RetrySet.new), jids(Sidekiq::DeadSet.new)]
    assert_equal 302, post("/morgue/#{three.sub("r3", "")}", "delete" => "Delete").status
    assert_equal ["r3"], jids(Sidekiq::DeadSet.new), "score- with no jid names no job, as in Sidekiq"
  end

  def test_whole_sets_scheduled_jobs_and_the_morgue
    %w[a b].each { |jid| add("retry", jid) }
    assert_equal "http://example.org/retries", post("/retries/all/kill")["location"]
    assert_equal %w[a b], jids(Sidekiq::DeadSet.new)
    post("/morgue/all/retry")
    assert_equal 2, Sidekiq::Queue.new.size
    add("dead", "c")
    post("/morgue/all/delete")
    assert_equal 0, Sidekiq::DeadSet.new.size
    key = add("schedule", "s1", queue: "later", score: Time.now.to_f + 3600)
    gone = add("schedule", "s2", score: Time.now.to_f + 3600)
    assert_equal "http://example.org/scheduled", post("/scheduled", "key" => [key], "add_to_queue" => "AddToQueue")["location"]
    post("/scheduled/#{gone}", "delete" => "Delete")
    assert_equal [["s1"], 0], [Sidekiq::Queue.new("later").map(&:jid), Sidekiq::ScheduledSet.new.size]
  end

  def test_queues_and_processes
    Sidekiq::Client.push("class" => "FormsJob", "args" => [1], "queue" => "mail")
    kept = Sidekiq::Client.push("class" => "FormsJob", "args" => [2], "queue" => "mail")
    raw = Sidekiq::Queue.new("mail").find { |job| job.jid != kept }.value
    assert_equal "http://example.org/queues/mail", post("/queues/mail/delete", "key_val" => raw)["location"]
    assert_equal [kept], Sidekiq::Queue.new("mail").map(&:jid)
    post("/queues/mail", "pause" => "pause")
    assert Sidekiq::Queue.new("mail").paused?
    post("/queues/mail", "unpause" => "unpause")
    refute Sidekiq::Queue.new("mail").paused?
    assert_equal "http://example.org/queues", post("/queues/mail")["location"]
    assert_equal 0, Sidekiq::Queue.new("mail").size

    Sidekiq.redis do |conn|
      conn.sadd("processes", ["host:1:aa"])
      conn.hset("host:1:aa", "info", JSON.generate("hostname" => "host", "identity" => "host:1:aa", "pid" => 1), "beat", Time.now.to_f, "busy", 0)
    end
    assert_equal "http://example.org/busy", post("/busy", "quiet" => "1", "identity" => "host:1:aa")["location"]
    post("/busy", "stop" => "Stop All")
    assert_equal %w[TERM TSTP], Sidekiq.redis { |conn| conn.lrange("host:1:aa-signals", 0, -1) }
    deckhands = post("/busy", "identity" => "host:1:aa", "signal" => "quiet")
    assert_equal [302, "TSTP"], [deckhands.status, Sidekiq.redis { |conn| conn.lindex("host:1:aa-signals", 0) }], "Deckhand's own Busy form still works"
  end

  def test_change_locale_keeps_a_known_locale_and_goes_back_on_this_site_only
    app = Sidekiq::Web.new.tap { |web| web.use(HashSession, @session) }
    back = post("/change_locale", {"locale" => "es"}, SAME_ORIGIN.merge("HTTP_REFERER" => "http://example.org/retries"), app)
    assert_equal [302, "http://example.org/retries", "es"], [back.status, back["location"], @session[:locale]]
    post("/change_locale", {"locale" => "klingon"}, SAME_ORIGIN, app)
    assert_equal "es", @session[:locale]
    elsewhere = post("/change_locale", {"locale" => "fr"}, SAME_ORIGIN.merge("HTTP_REFERER" => "http://example.org/retries"), app)
    assert_equal "http://example.org/retries", elsewhere["location"]
    elsewhere = post("/change_locale", {"locale" => "de"}, SAME_ORIGIN.merge("HTTP_REFERER" => "https://evil.example/"), app)
    assert_equal "http://example.org/", elsewhere["location"]
    page = Rack::MockRequest.new(app).get("/retries", "HTTP_ACCEPT" => "text/html", "HTTP_ACCEPT_LANGUAGE" => "ja")
    assert_includes page.body, %(<html lang="de" dir="ltr"), "the dashboard's pages speak the language chosen"
    assert_includes page.body, ">Wiederholungen</a>"
  end

  def test_the_csrf_check_passes_what_sidekiqs_passes_and_no_more
    key = add("retry", "guarded")
    form = {"key" => [key], "delete" => "Delete"}
    assert_equal 403, post("/retries", form, {}).status, "no Sec-Fetch-Site, no token"
    assert_equal 403, post("/retries", form, {"HTTP_SEC_FETCH_SITE" => "cross-site"}).status
    app = Sidekiq::Web.new.tap { |web| web.use(HashSession, @session) }
    token = Deckhand::DropIn::SessionToken.new(@session).masked
    assert_equal 403, post("/retries", form.merge("authenticity_token" => "x" * 88), {}, app).status
    assert_equal 403, post("/retries", form.merge("authenticity_token" => token), {"HTTP_SEC_FETCH_SITE" => "cross-site"}, app).status
    assert_equal 403, post("/retries", form.merge("authenticity_token" => token), {"HTTP_ORIGIN" => "https://evil.example"}, app).status
    assert_equal 1, Sidekiq::RetrySet.new.size
    assert_equal 302, post("/retries", form.merge("authenticity_token" => token), {}, app).status, "the session's token, as Sidekiq checks it"
    assert_equal 0, Sidekiq::RetrySet.new.size

    assert_equal 403, post("/queues/mail", {"action" => "pause"}, {}).status, "Deckhand's own forms are checked the same way"
    assert_equal 302, post("/queues/mail", {"action" => "pause", "authenticity_token" => token}, {}, app).status
    assert Sidekiq::Queue.new("mail").paused?
  end

  def test_sidekiqs_test_mode_lets_posts_through_as_sidekiq_does
    key = add("retry", "tested")
    $TESTING = true # standard:disable Style/GlobalVars
    assert_equal 302, post("/retries", {"key" => [key], "delete" => "Delete"}, {}).status
    assert_equal 403, post("/retries", {"key" => [key], "delete" => "Delete"}, {"HTTP_SEC_FETCH_SITE" => "cross-site"}).status
  ensure
    $TESTING = nil # standard:disable Style/GlobalVars
  end

  def test_a_read_only_dashboard_refuses_sidekiqs_forms_too
    Deckhand::Web.authorize { |env| env["REQUEST_METHOD"] == "GET" }
    key = add("retry", "kept")
    assert_equal 403, post("/retries", "key" => [key], "delete" => "Delete").status
    assert_equal 1, Sidekiq::RetrySet.new.size
  ensure
    Deckhand::Web.authorize
  end
end
