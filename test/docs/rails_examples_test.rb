# frozen_string_literal: true

require_relative "../rails/rails_helper"
require "open3"
require "deckhand/web"
require_relative "doc_examples"

# Where the Rails examples define and find their names (their jobs, the
# stand-ins for the application's mailer and login).
module RailsDocsSandbox; end

# The Rails examples of the guides (docs/rails.md, the routes of docs/web.md
# and docs/sharding.md), run in the Rails test app (test/rails/app: Active
# Job on Deckhand, Active Record on SQLite) or, for config/application.rb, in
# a Rails process of its own.
class DocsRailsExamplesTest < Minitest::Test
  include Deckhand::RailsTestApp

  def teardown
    RailsDocsSandbox.constants.each { |name| RailsDocsSandbox.send(:remove_const, name) }
    (RailsDocsSandbox.singleton_methods - [:name]).each { |name| RailsDocsSandbox.singleton_class.send(:remove_method, name) }
    Deckhand::Web.shards = nil
    super
  end

  def run_example(name)
    block = Deckhand::DocExamples.fetch(name)
    RailsDocsSandbox.module_eval(block.code, block.path, block.line)
  end

  # A config/routes.rb holding the example, drawn into a route set of its own
  # that answers as the application would.
  def routes(name)
    block = Deckhand::DocExamples.fetch(name)
    code = "proc do\n#{block.code}end"
    drawing = RailsDocsSandbox.module_eval(code, block.path, block.line - 1)
    set = ActionDispatch::Routing::RouteSet.new
    set.draw(&drawing)
    Rack::MockRequest.new(set)
  end

  def queued(queue) = redis.call("LRANGE", "queue:#{queue}", 0, -1).map { |raw| JSON.parse(raw) }

  def html = {"HTTP_ACCEPT" => "text/html"}

  def test_config_application_rb_makes_deckhand_the_active_job_backend
    block = Deckhand::DocExamples.fetch("rails-application")
    script = <<~RUBY
      $LOAD_PATH.unshift(#{File.join(Deckhand::DocExamples::ROOT, "lib").inspect})
      require "rails"
      require "active_job/railtie"
      require "active_record/railtie"
      #{block.code}
      MyApp::Application.configure do
        config.eager_load = false
        config.logger = Logger.new(nil)
        config.secret_key_base = "docs"
        config.root = Dir.pwd
      end
      Rails.application.initialize!
      class PingJob < ActiveJob::Base
        def perform(*) = nil
      end
      PingJob.perform_later(1)
      puts ActiveJob::Base.queue_adapter.class.name, Rails.application.config.deckhand.push_after_commit
    RUBY
    Dir.mktmpdir do |dir|
      FileUtils.mkdir_p(File.join(dir, "config"))
      File.write(File.join(dir, "config/database.yml"), "development:\n  adapter: sqlite3\n  database: db.sqlite3\n")
      out, status = Open3.capture2e({"REDIS_URL" => Deckhand::RedisHarness.url}, RbConfig.ruby, "-e", script, chdir: dir)
      assert status.success?, out
      assert_equal ["ActiveJob::QueueAdapters::DeckhandAdapter", "true"], out.lines.last(2).map(&:chomp)
    end
    assert_equal ["PingJob"], queued("default").map { |job| job["wrapped"] }
  end

  def test_an_active_job_job_pushed_three_ways
    require "net/protocol"
    mailer = Class.new { def self.welcome(user) = Struct.new(:deliver_now).new(user) }
    RailsDocsSandbox.const_set(:UserMailer, mailer)
    user = User.create!(name: "Ada")
    users = [User.create!(name: "Grace"), User.create!(name: "Edsger")]
    RailsDocsSandbox.define_singleton_method(:user) { user }
    RailsDocsSandbox.define_singleton_method(:users) { users }
    run_example("rails-active-job")
    jobs = queued("mailers")
    assert_equal ["RailsDocsSandbox::WelcomeEmailJob"] * 3, jobs.map { |job| job["wrapped"] }
    ids = jobs.map { |job| job["args"].first["arguments"].first["_aj_globalid"] }
    assert_equal [user, *users].map { |u| u.to_global_id.to_s }.sort, ids.sort
    job, at = redis.call("ZRANGE", "schedule", 0, -1, "WITHSCORES").first
    assert_equal user.to_global_id.to_s, JSON.parse(job)["args"].first["arguments"].first["_aj_globalid"]
    assert_in_delta Time.now.to_f + 600, at.to_f, 10, "set(wait: 10.minutes)"
  end

  def test_a_push_inside_a_transaction_is_sent_when_it_commits
    RailsDocsSandbox.const_set(:WelcomeEmailJob, Class.new { include Deckhand::Job })
    RailsDocsSandbox::WelcomeEmailJob.deckhand_options(queue: "mailers")
    RailsDocsSandbox.define_singleton_method(:params) { {name: "Ada"} }
    User.transaction do
      run_example("rails-push-after-commit")
      assert_empty queued("mailers"), "held while a transaction is open"
    end
    assert_equal [[User.find_by!(name: "Ada").id]], queued("mailers").map { |job| job["args"] }
  end

  def test_the_dashboard_mounted_in_routes
    app = routes("web-rails-mount")
    assert_equal 200, app.get("/deckhand/queues", html).status
    assert_equal 404, app.get("/queues", html).status
  end

  def test_the_dashboard_behind_a_session_constraint
    admin = Struct.new(:admin?)
    users = {1 => admin.new(true), 2 => admin.new(false)}
    RailsDocsSandbox.const_set(:User, Class.new { define_singleton_method(:find_by) { |id:| users[id] } })
    app = routes("web-rails-constraint")
    # Rails' session reads keys as strings or symbols alike.
    session = ->(id) { html.merge("rack.session" => ActiveSupport::HashWithIndifferentAccess.new("user_id" => id)) }
    assert_equal 200, app.get("/deckhand/queues", session.call(1)).status
    assert_equal 404, app.get("/deckhand/queues", session.call(2)).status, "not an admin"
    assert_equal 404, app.get("/deckhand/queues", session.call(nil)).status, "not logged in"
  end

  def test_the_shard_switcher_mounted_in_routes
    eu = Deckhand::RedisHarness.url.sub(%r{/0\z}, "/1")
    ENV["EU_REDIS_URL"] = eu
    RailsDocsSandbox.const_set(:US_STORE, Deckhand::RedisHarness.store)
    eu_redis = RedisClient.new(url: eu)
    eu_redis.call("SADD", "queues", "invoices")
    eu_redis.call("LPUSH", "queue:invoices", JSON.generate("class" => "InvoiceJob", "args" => [1], "jid" => "e" * 24, "queue" => "invoices"))
    app = routes("sharding-web-shards")
    assert_equal %w[main eu us], Deckhand::Web.shards.names, "the first line sets the class-wide shards"
    page = app.get("/deckhand/shards/eu/queues", html)
    assert_equal 200, page.status
    assert_includes page.body, "invoices"
    refute_includes app.get("/deckhand/queues", html).body, "invoices"
    assert_equal 404, app.get("/deckhand/shards/us/queues", html).status, "the mounted instance has two shards"
  ensure
    ENV.delete("EU_REDIS_URL")
    eu_redis&.call("FLUSHDB")
    eu_redis&.close
  end
end
