# frozen_string_literal: true

require "test_helper"
require_relative "../../../support/web/web_helpers"
require_relative "../../../support/second_redis"

# The dashboard switching between two real Redis servers: the configuration's
# and a second one, named with characters a URL and a page must escape.
class WebShardsTest < Minitest::Test
  include Deckhand::WebHelpers

  EU = "eu <b>&/x"
  EU_PATH = "/shards/eu%20%3Cb%3E%26%2Fx"

  def setup
    super
    other.call("FLUSHALL")
  end

  def other = Deckhand::SecondRedis.client

  def sharded(**options) = web_app(shards: {"main" => Deckhand.config, EU => Deckhand::SecondRedis.url}, **options)

  def mounted(app) = Rack::Builder.new { map("/deckhand") { run app } }

  def test_each_shard_shows_its_own_redis_and_the_first_opens_at_the_mount
    Deckhand::Client.push("class" => "RecordJob", "args" => [1], "queue" => "main_only")
    Deckhand::Client.via(Deckhand::SecondRedis.store) { Deckhand::Client.push("class" => "RecordJob", "args" => [2], "queue" => "eu_only") }
    app = sharded
    main = get("/queues", app: app).body
    assert_includes main, "main_only"
    refute_includes main, "eu_only"
    eu = get("#{EU_PATH}/queues", app: app)
    assert_equal 200, eu.status
    assert_includes eu.body, "eu_only"
    refute_includes eu.body, "main_only"
    assert_includes eu.body, %(href="#{EU_PATH}/queues/eu_only"), "links stay on the shard"
    assert_includes eu.body, %(action="#{EU_PATH}/find"), "forms too"
    assert_includes eu.body, Deckhand::SecondRedis.store.location
    named = get("/shards/main/queues", app: app).body
    assert_includes named, "main_only", "the first shard is also under its name"
    refute_includes named, "eu_only"
  end

  def test_the_switcher_lists_the_shards_escaped_on_the_same_section
    body = get("/deckhand#{EU_PATH}/retries", app: mounted(sharded)).body
    assert_includes body, %(<nav class="shards" aria-label="Redis shard">)
    assert_includes body, %(<a href="/deckhand/shards/main/retries">main</a>)
    assert_includes body, %(<a href="/deckhand#{EU_PATH}/retries" aria-current="page">eu &lt;b&gt;&amp;/x</a>)
    refute_includes body, "<b>&"
    refute_includes get("/", app: web_app).body, %(class="shards"), "no switcher with one Redis"
  end

  def test_actions_change_the_shards_redis_and_come_back_to_its_pages
    Deckhand::Client.via(Deckhand::SecondRedis.url) { Deckhand::Client.push("class" => "RecordJob", "args" => [1], "queue" => "mail") }
    Deckhand::Client.push("class" => "RecordJob", "args" => [1], "queue" => "mail")
    response = post_from("/deckhand#{EU_PATH}/queues/mail", {"action" => "pause"}, app: mounted(sharded))
    assert_redirect response, "/deckhand#{EU_PATH}/queues/mail", notice: "paused.0"
    assert_includes Array(response.headers["set-cookie"]).join("\n"), "path=/deckhand/;", "one notice cookie for every shard"
    eu_config = Deckhand::Client::Target.for(Deckhand::SecondRedis.url).config_for(Deckhand.config)
    assert Deckhand::API.new(eu_config).queue("mail").paused?
    refute api.queue("mail").paused?, "the main Redis' queue of the same name runs on"
  end

  def test_a_shard_not_configured_is_not_found
    app = sharded
    assert_equal 404, get("/shards/nowhere/queues", app: app).status
    assert_equal 404, get("/shards/", app: app).status
    assert_equal 404, get("/shards/nowhere/queues", app: web_app).status, "nor without shards"
    assert_equal 404, post_from("/shards/nowhere/queues/mail", {"action" => "pause"}, app: app).status
  end

  def test_the_csrf_cookie_is_one_for_the_whole_dashboard
    response = get("/deckhand#{EU_PATH}/", app: mounted(sharded))
    assert_match(%r{deckhand_csrf=\h+; path=/deckhand/; HttpOnly}, Array(response.headers["set-cookie"]).join("\n"))
  end

  def test_bad_shards_are_refused_where_they_are_set
    assert_raises(Deckhand::ConfigError) { Deckhand::Web.new(shards: ["redis://a:6379/0"]) }
    assert_raises(Deckhand::ConfigError) { Deckhand::Web.new(shards: {}) }
    assert_raises(Deckhand::ConfigError) { Deckhand::Web.new(shards: {"" => Deckhand.config}) }
    error = assert_raises(Deckhand::ConfigError) { Deckhand::Web.new(shards: {"eu" => "user:s3cret@eu:6379"}) }
    refute_includes error.message, "s3cret"
    error = assert_raises(Deckhand::ConfigError) { Deckhand::Web.shards = {"eu" => Object.new} }
    assert_includes error.message, "Deckhand::Web shard \"eu\" takes another Redis"
    assert_nil Deckhand::Web.shards
  end
end
