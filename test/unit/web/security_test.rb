# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

class WebSecurityTest < Minitest::Test
  include Deckhand::WebHelpers

  PAGES = ["/", "/busy", "/queues", "/queues/default", "/retries", "/scheduled", "/dead", "/metrics", "/metrics/RecordJob"].freeze

  def setup
    super
    Deckhand::Client.push("class" => "RecordJob", "args" => [1])
    add_to("dead", retry_job("d" * 24))
  end

  def csrf_cookie(response) = response.headers["set-cookie"][/deckhand_csrf=(\h+)/, 1]

  def test_every_response_carries_the_security_headers
    (PAGES + ["/stats.json", "/nope"]).each do |path|
      headers = get(path).headers
      assert_equal "nosniff", headers["x-content-type-options"], path
      assert_equal "no-store", headers["cache-control"], path
      csp = headers["content-security-policy"]
      assert_match(/default-src 'none'/, csp, path)
      refute_includes csp, "unsafe-inline", path
      refute_includes csp, "unsafe-eval", path
    end
    redirect = post("/queues/default", "action" => "pause")
    assert_equal "no-store", redirect.headers["cache-control"]
  end

  def test_scripts_and_styles_run_only_with_this_responses_nonce
    nonces = PAGES.map do |path|
      response = get(path)
      nonce = response.headers["content-security-policy"][/script-src 'nonce-([^']+)'/, 1]
      assert_includes response.headers["content-security-policy"], "style-src 'nonce-#{nonce}'"
      body = response.body
      tags = body.scan(/<(?:script|link)\b[^>]*>/)
      assert_equal 4, tags.size, path
      tags.each { |tag| assert_includes tag, %(nonce="#{nonce}"), "#{path}: #{tag}" }
      refute_match(/<script(?![^>]*\bsrc=)/, body, "#{path}: no inline script")
      refute_match(/<style\b/, body, "#{path}: no inline style element")
      refute_match(/\sstyle=/, body, "#{path}: no style attribute")
      refute_match(/\son[a-z]+=/, body, "#{path}: no event handler attribute")
      nonce
    end
    assert_equal nonces.size, nonces.uniq.size, "a fresh nonce per response"
  end

  def test_a_same_origin_post_passes
    assert_equal 303, post_from("/queues/default", {"action" => "pause"}, site: "same-origin").status
  end

  def test_cross_site_and_same_site_posts_are_refused
    %w[cross-site same-site none].each do |site|
      response = post_from("/queues/default", {"action" => "clear"}, site: site)
      assert_equal 403, response.status, site
    end
    assert_equal 1, redis.call("LLEN", "queue:default")
  end

  def test_without_sec_fetch_site_the_form_must_echo_the_cookie_token
    token = csrf_cookie(get("/queues"))
    assert_match(/\A\h{64}\z/, token)
    cookie = {"HTTP_COOKIE" => "deckhand_csrf=#{token}"}
    assert_equal 403, post_from("/queues/default", {"action" => "clear"}, site: nil).status, "no token"
    assert_equal 403, post_from("/queues/default", {"action" => "clear", "_csrf" => token}, site: nil).status, "no cookie"
    assert_equal 403, post_from("/queues/default", {"action" => "clear", "_csrf" => "0" * 64}, site: nil, headers: cookie).status, "wrong token"
    assert_equal 403, post_from("/queues/default", {"action" => "clear", "_csrf" => token}, site: nil,
      headers: cookie.merge("HTTP_ORIGIN" => "https://evil.example")).status, "foreign origin"
    assert_equal 1, redis.call("LLEN", "queue:default")
    assert_equal 303, post_from("/queues/default", {"action" => "clear", "_csrf" => token}, site: nil, headers: cookie).status
    assert_equal 0, redis.call("LLEN", "queue:default")
  end

  def test_forms_carry_the_token_of_the_cookie
    first = get("/queues")
    token = csrf_cookie(first)
    assert_includes first.headers["set-cookie"], "HttpOnly"
    assert_includes first.headers["set-cookie"], "SameSite=Strict"
    assert_includes first.body, %(name="_csrf" value="#{token}")
    again = get("/queues", headers: {"HTTP_COOKIE" => "deckhand_csrf=#{token}"})
    assert_nil again.headers["set-cookie"], "the cookie is kept"
    assert_includes again.body, %(name="_csrf" value="#{token}")
  end

  def test_state_changes_need_post
    key = key_of(:dead, "d" * 24)
    assert_equal 200, get("/dead/#{key}?action=delete").status, "a GET shows, never acts"
    assert_equal 1, redis.call("ZCARD", "dead")
    %w[PUT DELETE PATCH].each do |verb|
      response = Rack::MockRequest.new(web_app).request(verb, "/dead/#{key}", {:params => {"action" => "delete"}, "HTTP_SEC_FETCH_SITE" => "same-origin"})
      assert_equal 403, response.status, verb
    end
    assert_equal 1, redis.call("ZCARD", "dead")
  end

  def test_read_only_users_see_no_buttons_and_cannot_act
    app = web_app(authorize: ->(env) { env["HTTP_X_ROLE"] == "admin" })
    body = get("/dead", app: app).body
    assert_includes body, "Read-only"
    refute_includes body, "<button name=\"action\""
    response = post_from("/dead/#{key_of(:dead, "d" * 24)}", {"action" => "delete"}, app: app)
    assert_equal 403, response.status
    assert_equal 1, redis.call("ZCARD", "dead")
    admin = {"HTTP_X_ROLE" => "admin"}
    assert_includes get("/dead", app: app, headers: admin).body, "<button name=\"action\""
    assert_equal 303, post_from("/dead/#{key_of(:dead, "d" * 24)}", {"action" => "delete"}, app: app, headers: admin).status
  end

  def test_the_class_level_authorize_hook
    Deckhand::Web.authorize { |_env| false }
    assert_equal 403, Rack::MockRequest.new(Deckhand::Web).post("/queues/default", {:params => {"action" => "clear"}, "HTTP_SEC_FETCH_SITE" => "same-origin"}).status
    assert_equal 1, redis.call("LLEN", "queue:default")
  ensure
    Deckhand::Web.authorize # no block: everyone may act again
  end

  def test_the_basic_authentication_recipe_from_the_docs
    app = Rack::Builder.new do
      use Rack::Auth::Basic, "Deckhand" do |user, password|
        Rack::Utils.secure_compare(user, "admin") & Rack::Utils.secure_compare(password, "s3cret")
      end
      run Deckhand::Web
    end
    assert_equal 401, get("/queues", app: app).status
    wrong = {"HTTP_AUTHORIZATION" => "Basic #{["admin:nope"].pack("m0")}"}
    assert_equal 401, get("/queues", app: app, headers: wrong).status
    right = {"HTTP_AUTHORIZATION" => "Basic #{["admin:s3cret"].pack("m0")}"}
    assert_equal 200, get("/queues", app: app, headers: right).status
  end
end
