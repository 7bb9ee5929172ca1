# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/sidekiq_web_extensions_test.rb starts
# it): a Sidekiq Web extension, registered as plugins register theirs, serves
# its tab, pages, strings and assets inside Deckhand's dashboard, behind its
# checks.
require "minitest/autorun"
require "json"
require "tmpdir"
require "sidekiq"
require "sidekiq/web"
require "rack/mock"

class WebExtensionsInsideTest < Minitest::Test
  SAME_ORIGIN = {"HTTP_SEC_FETCH_SITE" => "same-origin"}.freeze

  # An extension as a plugin writes one: routes on the app it is given.
  module Reports
    def self.registered(app)
      app.get("/reports") { erb(:index, views: File.join(ROOT, "views")) }
      app.get("/reports/:name") do
        halt(404) unless route_params(:name).match?(/\A\w+\z/)
        json("name" => route_params(:name), "format" => params[:format])
      end
      # A plugin's own list, paged as sidekiq-failures and sidekiq-status page theirs.
      app.get("/audit") do
        @count = 2
        @current_page, @total_size, @entries = page("audit:log", params["page"], @count, reverse: true)
        erb("<ol><% @entries.each do |(raw, score)| %><li data-score=\"<%= score.to_i %>\"><%= raw %></li><% end %></ol>" \
          "<%= erb :_paging, locals: {url: \"\#{root_path}audit\"} %>")
      end
      # A page about one job of the plugin's own sorted set, as sidekiq-failures has.
      app.get("/audit/jobs/:jid") do
        @job = Sidekiq::JobSet.new("audit:jobs").find_job(route_params(:jid)) or halt(404)
        erb("<%= erb :_job_info, locals: {job: @job, type: :failure} %>")
      end
      app.post("/reports/:name/run") do
        RUNS << route_params(:name)
        redirect "#{root_path}reports"
      end
    end

    RUNS = []
  end

  def setup
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
    Reports.const_set(:ROOT, Dir.mktmpdir("reports-extension")) unless Reports.const_defined?(:ROOT)
    write("locales/en.yml", "en:\n  Reports: Reports\n  Greeting: \"Hello %{name}\"\n")
    write("locales/de.yml", "de:\n  Reports: Berichte\n")
    write("assets/reports/css/reports.css", "h2 { color: teal }\n")
    # Sidekiq 8's style_tag adds the tag to the page's head; 7.3's returns it for the page to print.
    style = Sidekiq::VERSION.start_with?("8.") ? "<% style_tag 'reports/css/reports.css' %>" : "<%= style_tag 'reports/css/reports.css' %>"
    write("views/index.erb", "<h2 id=\"reports\"><%= t('Reports') %></h2>#{style}" \
      "<form method=\"post\" action=\"<%= root_path %>reports/nightly/run\"><%= csrf_tag %></form>")
    Reports::RUNS.clear
    Sidekiq::Web.register(Reports, name: "reports", tab: "Reports", index: "reports", root_dir: Reports::ROOT, asset_paths: ["css"])
  end

  def teardown
    %i[@routes @befores @afters].each { |name| Sidekiq::WebApplication.remove_instance_variable(name) if Sidekiq::WebApplication.instance_variable_defined?(name) }
    %i[@custom_tabs @locales @custom_job_info_rows @app_url].each { |name| Sidekiq::Web.remove_instance_variable(name) if Sidekiq::Web.instance_variable_defined?(name) }
    Sidekiq::Web.middlewares.clear
    Deckhand::Web.authorize
  end

  def write(path, text)
    file = File.join(Reports::ROOT, path)
    FileUtils.mkdir_p(File.dirname(file))
    File.write(file, text)
  end

  def test_an_extension_pages_its_own_sorted_set_with_sidekiq_s_paging
    Sidekiq.redis { |conn| (1..5).each { |i| conn.zadd("audit:log", i, "entry#{i}") } }
    body = get("/audit?page=2", SAME_ORIGIN).body
    assert_equal %w[entry3 entry2], body.scan(/<li data-score="\d">(entry\d)</).flatten, "newest first, the second page of two"
    assert_includes body, %(<span class="here" aria-current="page">2</span>)
    %w[1 3].each { |number| assert_includes body, %(href="/jobs/audit?page=#{number}") }
    Sidekiq.redis { |conn| conn.del("audit:log") }
    refute_includes get("/audit", SAME_ORIGIN).body, "aria-label=\"Pages\"", "nothing to page through"
    helper = Object.new.extend(Sidekiq::Paginator)
    assert_equal [2, 5, %w[c d]], helper.page_items(%w[a b c d e], "2", 2)
    Sidekiq.redis { |conn| conn.rpush("audit:list", %w[a b c]) }
    assert_equal [1, 3, %w[c b]], helper.page("audit:list", 1, 2, reverse: true)
    Sidekiq.redis { |conn| conn.set("audit:string", "x") }
    assert_includes assert_raises(ArgumentError) { helper.page("audit:string") }.message, "only a sorted set or a list can be paged"
  end

  def test_an_extension_shows_a_job_of_its_own_set_with_sidekiq_s_job_info_escaped
    job = {"class" => "HardJob", "queue" => "mail", "jid" => "j1", "args" => ["<h1>omg</h1>"], "tags" => ["<b>t</b>"],
           "created_at" => 1_700_000_000.0, "retry_count" => 2, "error_class" => "<script>x</script>ArgumentError", "error_message" => "<p>wow</p>"}
    Sidekiq.redis { |conn| conn.zadd("audit:jobs", 1, JSON.generate(job)) }
    body = get("/audit/jobs/j1", SAME_ORIGIN).body
    assert_includes body, "<th scope=\"row\">Queue</th><td>mail</td>"
    assert_includes body, "<code>HardJob</code>"
    assert_includes body, "&quot;&lt;h1&gt;omg&lt;/h1&gt;&quot;"
    assert_includes body, "&lt;b&gt;t&lt;/b&gt;"
    assert_includes body, "<code>&lt;script&gt;x&lt;/script&gt;ArgumentError</code>: &lt;p&gt;wow&lt;/p&gt;"
    assert_includes body, "<td>2</td>"
    assert_includes body, %(datetime="2023-11-14T22:13:20Z")
    refute_match(/<h1>omg|<script>x|<p>wow|<b>t/, body)
    assert_equal 404, get("/audit/jobs/gone", SAME_ORIGIN).status
  end

  def get(path, env = {}, app: Sidekiq::Web.new) = Rack::MockRequest.new(app).get(path, env.merge("SCRIPT_NAME" => "/jobs"))

  def post(path, env = SAME_ORIGIN, app: Sidekiq::Web.new) = Rack::MockRequest.new(app).post(path, env.merge("SCRIPT_NAME" => "/jobs"))

  def test_a_registered_tab_is_in_the_navigation_and_its_page_in_the_dashboards_layout
    home = get("/")
    assert_includes home.body, %(<a href="/jobs/reports">Reports</a>)
    page = get("/reports")
    assert_equal 200, page.status
    assert_includes page.body, %(<h2 id="reports">Reports</h2>)
    assert_includes page.body, %(<a href="/jobs/reports" aria-current="page">Reports</a>), "its tab is the current one"
    assert_includes page.body, %(<a href="/jobs/queues">Queues</a>), "Deckhand's own navigation is around it"
    nonce = page.headers["content-security-policy"][/script-src [^;]*'nonce-([^']+)'/, 1]
    link = %(<link type="text/css" media="screen" rel="stylesheet" nonce="#{nonce}" href="/jobs/reports/css/reports.css" />)
    where = Sidekiq::VERSION.start_with?("8.") ? page.body[%r{<head>.*</head>}m] : page.body[%r{<main.*</main>}m]
    assert_includes where, link, "the extension's stylesheet carries the nonce the policy allows, in the head as Sidekiq 8 puts it"
    assert_equal "en", page.headers["content-language"]
  end

  def test_its_strings_follow_the_browsers_language_and_its_assets_are_served
    page = get("/reports", {"HTTP_ACCEPT_LANGUAGE" => "de-DE,de;q=0.9,en;q=0.5"})
    assert_includes page.body, %(<h2 id="reports">Berichte</h2>)
    assert_includes page.body, %(<a href="/jobs/reports" aria-current="page">Berichte</a>)
    assert_equal "de", page.headers["content-language"]
    css = get("/reports/css/reports.css")
    assert_equal [200, "h2 { color: teal }\n"], [css.status, css.body]
    assert_equal "private, max-age=86400", css.headers["cache-control"]
  end

  module CronPaths
    def cron_path = "#{root_path}cron"
  end

  # As sidekiq-cron registers: its strings and helpers through the app it is given.
  module Cronlike
    def self.registered(app)
      app.settings.locales << File.join(Reports::ROOT, "cron_locales")
      app.helpers(CronPaths)
      app.helpers { define_method(:cron_label) { t("Cron") } }
      app.get("/cron") { "#{cron_label} at #{cron_path}" }
    end
  end

  def test_an_extension_adds_strings_and_helpers_through_the_app_it_is_given
    write("cron_locales/en.yml", "en:\n  Cron: Scheduled tasks\n")
    Sidekiq::Web.register_extension(Cronlike)
    Sidekiq::Web.tabs["Cron"] = "cron"
    page = get("/cron")
    assert_equal [200, "Scheduled tasks at /jobs/cron"], [page.status, page.body]
    assert_includes get("/").body, %(<a href="/jobs/cron">Scheduled tasks</a>)
  end

  def test_route_params_params_halt_and_json
    assert_equal({"name" => "weekly", "format" => "csv"}, JSON.parse(get("/reports/weekly?format=csv").body))
    assert_equal 404, get("/reports/no%20such").status
  end

  def test_a_post_runs_when_same_origin_and_allowed_and_never_cross_site
    response = post("/reports/nightly/run")
    assert_equal [302, "http://example.org/jobs/reports"], [response.status, response["location"]]
    assert_equal 403, post("/reports/evil/run", {"HTTP_SEC_FETCH_SITE" => "cross-site"}).status
    assert_equal 403, post("/reports/bare/run", {}).status, "no browser header, no token"
    Deckhand::Web.authorize { false }
    assert_equal 403, post("/reports/readonly/run").status
    assert_equal ["nightly"], Reports::RUNS
  end

  def test_a_first_visit_gets_the_cookie_whose_token_the_form_carries
    page = get("/reports")
    cookie = page.headers["set-cookie"].to_s[/deckhand_csrf=(\h{64})/, 1]
    refute_nil cookie
    assert_includes page.body, %(<input type='hidden' name='_csrf' value='#{cookie}'/>)
  end

  def test_the_forms_csrf_tag_carries_the_dashboards_cookie_token
    page = get("/reports", {"HTTP_COOKIE" => "deckhand_csrf=#{"c" * 64}"})
    assert_includes page.body, %(<input type='hidden' name='_csrf' value='#{"c" * 64}'/>)
    form = {"HTTP_COOKIE" => "deckhand_csrf=#{"c" * 64}", "CONTENT_TYPE" => "application/x-www-form-urlencoded"}
    assert_equal 302, post("/reports/tokened/run", form.merge(input: "_csrf=#{"c" * 64}")).status
    assert_equal 403, post("/reports/forged/run", form.merge(input: "_csrf=#{"d" * 64}")).status
    assert_equal ["tokened"], Reports::RUNS
  end

  def test_tab_labels_are_escaped_and_app_url_is_a_way_back
    Sidekiq::Web.tabs["<b>Bold</b>"] = "bold"
    Sidekiq::Web.app_url = "/admin"
    body = get("/").body
    assert_includes body, %(<a href="/jobs/bold">&lt;b&gt;Bold&lt;/b&gt;</a>)
    assert_includes body, %(<a href="/admin">Back to App</a>)
  end

  # A plugin's row: its HTML shown as given, the job read through Sidekiq's API.
  class LogLink
    def add_pair(job) = yield("Logs", %(<a class="logs" href="https://logs.example/#{job.jid}">#{job.klass} logs</a>))
  end

  def test_custom_job_info_rows_are_on_a_jobs_page
    Sidekiq::Web.custom_job_info_rows << LogLink.new
    Sidekiq.redis { |conn| conn.zadd("retry", 1_700_000_000.5, JSON.generate("class" => "HardJob", "args" => [], "queue" => "default", "jid" => "j" * 24)) }
    page = get("/retries/1700000000.5-#{"j" * 24}")
    assert_equal 200, page.status
    assert_includes page.body, %(<tr><th>Logs</th><td><a class="logs" href="https://logs.example/#{"j" * 24}">HardJob logs</a></td></tr>)
  end

  def test_before_and_after_hooks_run_around_the_dashboards_own_pages
    seen = []
    Sidekiq::WebApplication.before { seen << [:before, env["PATH_INFO"]] }
    Sidekiq::WebApplication.before("/queues*") { halt(418) }
    Sidekiq::WebApplication.after { seen << [:after, env["PATH_INFO"]] }
    assert_equal 200, get("/busy").status
    assert_equal 418, get("/queues/default").status
    assert_equal [[:before, "/busy"], [:after, "/busy"], [:before, "/queues/default"], [:after, "/queues/default"]], seen
  end

  def test_web_helpers_pick_a_language_format_and_escape
    helper = Sidekiq::WebAction.new({"HTTP_ACCEPT_LANGUAGE" => "fr,de;q=0.8", "SCRIPT_NAME" => "/jobs", :csp_nonce => "abc"}, nil)
    assert_equal ["fr", "de"], helper.user_preferred_languages
    assert_equal "de", helper.locale
    assert_equal "Hello Ann", helper.t("Greeting", name: "Ann"), "English when the language lacks the string"
    assert_equal "Missing", helper.t("Missing")
    assert_equal %(<span data-nwp="0">2</span> KB), helper.format_memory(2)
    assert_equal %(&quot;&lt;i&gt;&quot;, 1), helper.display_args(["<i>", 1])
    assert_equal %(<script type="text/javascript" nonce="abc" src="/jobs/r.js"></script>), helper.script_tag("r.js")
    assert_equal "/jobs/", helper.root_path
  end

  def test_erb_without_a_views_folder_says_what_to_give
    error = assert_raises(ArgumentError) { Sidekiq::WebAction.new({}, nil).erb(:missing) }
    assert_includes error.message, "erb(:missing, views: DIR)"
  end
end
