# frozen_string_literal: true

require "test_helper"
require "deckhand/web"

class WebRouterTest < Minitest::Test
  def router = Deckhand::Web::Router.new(Deckhand::Web::ROUTES)

  def test_segments_are_decoded_after_splitting
    route, params = router.match("GET", "/queues/a%2Fb%20c")
    assert_equal :show, route.action
    assert_equal({"name" => "a/b c"}, params)
  end

  def test_sets_are_named_and_other_words_are_not_sets
    assert_equal({"set" => "dead"}, router.match("GET", "/dead")[1])
    assert_equal({"set" => "retries", "key" => "1.5-abc"}, router.match("POST", "/retries/1.5-abc")[1])
    assert_nil router.match("GET", "/graveyard")
  end

  def test_head_is_get_and_other_methods_are_told_apart
    assert_equal :index, router.match("HEAD", "/queues")[0].action
    assert_equal Deckhand::Web::Router::WRONG_METHOD, router.match("POST", "/metrics")[0]
    assert_equal Deckhand::Web::Router::WRONG_METHOD, router.match("DELETE", "/queues/x")[0]
  end

  def test_malformed_paths_match_nothing
    assert_nil router.match("GET", "/queues/%FF"), "not UTF-8"
    assert_nil router.match("GET", "/queues//x")
    assert_equal :index, router.match("GET", "/queues/")[0].action, "a trailing slash is forgiven"
  end
end
