# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/sidekiq8_api_test.rb starts it):
# Sidekiq 8's names for the Web extension API (Sidekiq::Web::Action, Route,
# Config), its `configure` block with `register_extension` and `c[:key]`,
# name.html.erb templates, and the flash.
require "minitest/autorun"
require "tmpdir"
require "sidekiq"
require "sidekiq/web"
require "rack/mock"

class Sidekiq8WebTest < Minitest::Test
  module Notes
    def self.registered(app)
      app.get("/notes/:name") do
        @name = route_params(:name)
        erb(:note, views: VIEWS)
      end
    end
  end

  def test_routes_compile_as_sidekiq_8_does
    plain = Sidekiq::Web::Route.new(:get, "/dashboard", nil)
    assert_equal "/dashboard", plain.matcher
    assert_same Sidekiq::Web::Route::EMPTY, plain.match(:get, "/dashboard")
    named = Sidekiq::Web::Route.new(:get, "/queues/:name/jobs/:jid", nil)
    assert_kind_of Regexp, named.matcher
    assert_equal({name: "q1", jid: "abc"}, named.match(:get, "/queues/q1/jobs/abc"))
    assert_match named.matcher, "/queues/q1/jobs/abc"
    assert_nil named.match(:post, "/queues/q1/jobs/abc")
    assert_nil named.match(:get, "/queues/q1/jobs")
  end

  def test_the_flash_is_read_once
    session = {}
    Sidekiq::Web::Action.new({"rack.session" => session}, nil).flash { "saved" }
    assert_equal "saved", session[:skq_flash]
    action = Sidekiq::Web::Action.new({"rack.session" => session}, nil)
    assert_equal "saved", action.flash?
    assert_equal "saved", action.get_flash
    assert_nil session[:skq_flash]
    assert_equal "saved", action.get_flash
  end

  def test_configure_registers_an_extension_with_html_erb_views
    Notes.const_set(:VIEWS, Dir.mktmpdir("notes")) unless Notes.const_defined?(:VIEWS)
    File.write(File.join(Notes::VIEWS, "note.html.erb"), "<p id=note>Note <%= @name %></p>")
    Sidekiq::Web.configure do |config|
      assert_kind_of Sidekiq::Web::Config, config
      config[:my_plugin] = 3
      config.register_extension(Notes, name: "notes", tab: "Notes", index: "notes/all")
    end
    assert_equal 3, Sidekiq::Web.configure { |config| config[:my_plugin] }
    assert_equal "https://profiler.firefox.com/public/%s", Sidekiq::Web.configure { |config| config[:profile_view_url] }
    response = Rack::MockRequest.new(Sidekiq::Web.new).get("/notes/first")
    assert_equal 200, response.status
    assert_match(%r{<p id=note>Note first</p>}, response.body)
    assert_match(/Notes/, response.body, "the extension's tab")
  end

  def test_tags_and_filter_links_as_sidekiq_8_writes_them
    page = Class.new do
      include Sidekiq::WebHelpers

      def env = {"SCRIPT_NAME" => ""}

      def request = Rack::Request.new(Rack::MockRequest.env_for("/?only=jobs&jid=x"))
    end.new
    assert_equal "<a href='/retries?substr=ab&lt;c'>ab&lt;c</a>", page.filter_link("ab<c")
    tags = page.display_tags(Struct.new(:tags).new(["a<b"]))
    assert_includes tags, "jobtag-a&lt;b"
    assert_includes tags, "substr=a&lt;b"
    assert_equal "page=2&only=jobs", page.to_query_string("page" => "2", "jid" => "abc", "only" => "jobs")
  end

  # A helper object as plugins build one: locale folders, a request's env.
  class LocaleHelpers
    include Sidekiq::WebHelpers

    def initialize(dir, accept) = (@dir, @accept = dir, accept)

    def settings = Struct.new(:locales).new([@dir])

    def env = {"HTTP_ACCEPT_LANGUAGE" => @accept}

    def session = {}
  end

  def test_the_language_follows_accept_language_region_first_then_the_bare_language
    Dir.mktmpdir do |dir|
      {"en" => "English", "pt" => "Português", "pt-BR" => "Português (Brasil)", "zh-CN" => "简体中文", "zh-TW" => "正體中文", "ja" => "日本語"}.each do |lang, name|
        File.write(File.join(dir, "#{lang}.yml"), "#{lang}:\n  LanguageName: #{name}\n  Dashboard: #{lang}-board\n")
      end
      # Sidekiq 8 looks for a language and region first, then a bare language;
      # 7.3 takes the first wanted language with a file (its own, else the shortest).
      expected = {"zh-TW,zh;q=0.8,en-US;q=0.6" => "zh-TW", "pt-br" => "pt-BR", "pt-PT,pt;q=0.8" => "pt", "en-GB-oxendict" => "en",
                  "sv-SE,fr;q=0.5" => "en", "*" => "en"}
      expected.merge!(Sidekiq::VERSION.start_with?("8.") ? {"zh-HK,zh;q=0.9,ja-JP;q=0.8" => "ja", "en-US,ja;q=0.8" => "ja"} :
        {"zh-HK,zh;q=0.9,ja-JP;q=0.8" => "zh-CN", "en-US,ja;q=0.8" => "en"})
      expected.each { |accept, locale| assert_equal locale, LocaleHelpers.new(dir, accept).locale, accept }
      helpers = LocaleHelpers.new(dir, "pt")
      assert_equal ["Português", "missing"], [helpers.language_name("pt"), helpers.language_name("missing")]
      assert_equal({"ja" => {"LanguageName" => "日本語", "Dashboard" => "ja-board"}}, helpers.parse_yaml(File.join(dir, "ja.yml")))
      assert_equal "pt-board", helpers.t("Dashboard")
    end
  end

  def test_the_scheduled_sets_all_forms
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
    3.times { |i| Sidekiq::Client.push("class" => "X", "args" => [i], "at" => Time.now.to_f + 600) }
    app = Rack::MockRequest.new(Sidekiq::Web.new)
    response = app.post("/scheduled/all/add_to_queue", "HTTP_SEC_FETCH_SITE" => "same-origin")
    assert_equal 302, response.status
    assert_equal [0, 3], [Sidekiq::ScheduledSet.new.size, Sidekiq::Queue.new.size]
    2.times { |i| Sidekiq::Client.push("class" => "X", "args" => [i], "at" => Time.now.to_f + 600) }
    assert_equal 302, app.post("/scheduled/all/delete", "HTTP_SEC_FETCH_SITE" => "same-origin").status
    assert_equal [0, 3], [Sidekiq::ScheduledSet.new.size, Sidekiq::Queue.new.size]
  end
end
