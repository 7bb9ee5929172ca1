# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/sidekiq_web_policy_test.rb starts it,
# as Sidekiq 7.3 and as Sidekiq 8.1): drop-in mode's dashboard serves the
# Content-Security-Policy of the Sidekiq version it stands in for, naming
# the request's nonce, which its own tags carry.
require "minitest/autorun"
require "sidekiq"
require "sidekiq/web"
require "rack/mock"

class SidekiqWebPolicyInsideTest < Minitest::Test
  def setup
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
  end

  def get(app, path = "/") = Rack::MockRequest.new(app).get(path)

  def directives(response) = response["content-security-policy"].split("; ")

  def test_the_policy_is_sidekiq_s_and_names_the_nonce_the_page_s_tags_carry
    response = get(Sidekiq::Web.new)
    assert_equal 200, response.status
    nonce = directives(response).grep(/\Ascript-src/).first[/'nonce-([^']+)'/, 1]
    assert_operator nonce.to_s.length, :>=, 16
    assert_includes directives(response), "script-src 'self' 'nonce-#{nonce}'"
    assert_includes directives(response), "connect-src 'self' https: http: wss: ws:"
    assert_includes directives(response), "object-src 'none'"
    style = (Sidekiq::MAJOR == 8) ? "style-src 'self' 'nonce-#{nonce}'" : "style-src 'self' https: http: 'unsafe-inline'"
    assert_includes directives(response), style
    scripts = response.body.scan(/<script[^>]*>/)
    refute_empty scripts
    scripts.each { |tag| assert_includes tag, %(nonce="#{nonce}") }
  end

  def test_a_nonce_the_host_chose_is_the_page_s
    app = Sidekiq::Web.new
    host = lambda do |env|
      env[:csp_nonce] = "hostChosenNonce+0123456789=="
      app.call(env)
    end
    response = get(host)
    assert_includes directives(response), "script-src 'self' 'nonce-hostChosenNonce+0123456789=='"
    assert_includes response.body, %(nonce="hostChosenNonce+0123456789==")
  end

  def test_plain_deckhand_s_dashboard_keeps_its_own_stricter_policy
    response = get(Deckhand::Web.new)
    assert_equal 200, response.status
    assert_includes directives(response), "default-src 'none'"
    refute directives(response).any? { |directive| directive.include?("'self' 'nonce-") }
  end
end
