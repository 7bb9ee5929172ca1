# frozen_string_literal: true

require "test_helper"
require "zlib"
require "webrick"
require_relative "../../../support/web/web_helpers"

# The Profiles page through Rack: profiles listed and escaped, each one's
# data served only for a key of the profiles set, and View through a
# profile viewer's store (a real HTTP server on loopback standing in for
# Firefox Profiler's).
class WebProfilesTest < Minitest::Test
  include Deckhand::WebHelpers

  DATA = Zlib.gzip('{"meta":{}}')

  def save(token, jid, type: "ReportJob", format: "vernier")
    fields = {started_at: Time.now.to_i, token: token, type: type, jid: jid, elapsed: 0.25, size: DATA.bytesize,
              format: format, data: DATA}
    Deckhand::Store::Profiles.save(Deckhand.config.store, token, jid, fields, now: Time.now.to_f)
  end

  def test_profiles_are_listed_escaped_with_a_download_and_no_view_without_a_viewer
    save("mike", "j1", type: "Report<b>Job")
    save("fred", "j2", format: "stackprof")
    body = get("/profiles").body
    assert_includes body, "mike-j1"
    assert_includes body, "Report&lt;b&gt;Job"
    refute_includes body, "Report<b>Job"
    assert_includes body, %(href="/profiles/fred-j2/data")
    assert_includes body, "stackprof: opens in speedscope"
    refute_includes body, "View in Firefox Profiler"
    assert_includes get("/").body, %(href="/profiles"), "a tab in the navigation"
  end

  def test_data_is_the_gzipped_profile_and_only_a_listed_key_is_served
    save("mike", "j1")
    response = get("/profiles/mike-j1/data")
    assert_equal 200, response.status
    assert_equal "application/json", response.headers["content-type"]
    assert_equal "gzip", response.headers["content-encoding"]
    assert_equal DATA, response.body.b
    assert_nil response.headers["access-control-allow-origin"], "no other site's page may read a profile"
    redis.call("HSET", "secrets", "data", "not a profile")
    assert_equal 404, get("/profiles/secrets/data").status
    assert_includes get("/profiles").body, "mike-j1"
  end

  def test_view_goes_to_the_viewer_once_uploaded_and_to_the_list_without_one
    save("mike", "j1")
    assert_equal [302, "/profiles"], get("/profiles/mike-j1").then { [_1.status, _1.headers["location"]] }
    uploads = []
    server = WEBrick::HTTPServer.new(BindAddress: "127.0.0.1", Port: 0, Logger: WEBrick::Log.new(File::NULL), AccessLog: [])
    server.mount_proc("/store") do |request, response|
      uploads << [request["accept"], request.body.b]
      response.body = ["e30", ["{\"profileToken\":\"tok9\"}"].pack("m0").tr("+/", "-_").delete("="), "sig"].join(".")
    end
    thread = Thread.new { server.start }
    viewer = {store_url: "http://127.0.0.1:#{server.config[:Port]}/store", view_url: "https://viewer.test/public/%s"}
    app = web_app(profile_viewer: viewer)
    assert_includes get("/profiles", app: app).body, "View in Firefox Profiler"
    2.times do
      response = get("/profiles/mike-j1", app: app)
      assert_equal 302, response.status
      assert_equal "https://viewer.test/public/tok9", response.headers["location"]
    end
    assert_equal [["application/vnd.firefox-profiler+json;version=1.0", DATA]], uploads, "uploaded once, then its id is kept"
    assert_equal "tok9", redis.call("HGET", "mike-j1", "sid")
    assert_equal [302, "/profiles"], get("/profiles/unknown-key", app: app).then { [_1.status, _1.headers["location"]] }
  ensure
    server&.shutdown
    thread&.join
  end

  def test_a_store_that_cannot_be_reached_says_so
    save("mike", "j1")
    app = web_app(profile_viewer: {store_url: "http://127.0.0.1:1/store", view_url: "https://viewer.test/%s"})
    response = get("/profiles/mike-j1", app: app)
    assert_equal 502, response.status
    assert_includes response.body, "could not be reached"
  end
end
