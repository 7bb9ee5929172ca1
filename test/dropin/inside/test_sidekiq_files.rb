# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/sidekiq_files_test.rb starts it): the
# files applications require for Sidekiq's public classes, and those classes.
require "minitest/autorun"
require "json"
require "socket"
require "stringio"
require "tmpdir"
require "fileutils"
require "sidekiq"
%w[sidekiq/middleware/chain sidekiq/middleware/modules sidekiq/capsule sidekiq/config sidekiq/logger sidekiq/job_logger
  sidekiq/redis_connection sidekiq/middleware/current_attributes sidekiq/transaction_aware_client sidekiq/job/iterable
  sidekiq/iterable_job sidekiq/systemd sidekiq/sd_notify].each { |file| require file }

# This child's RubyGems knows no gem (its GEM_HOME is empty, so that no
# sidekiq gem can be found); Active Record's sqlite3 adapter asks RubyGems for
# sqlite3 before requiring it from the load path, where it is.
class Object
  private def gem(name, *requirements) = (name == "sqlite3") || super
end

module FilesApp
  class Current < ActiveSupport::CurrentAttributes
    attribute :user_id
  end

  class Seen
    include Sidekiq::ServerMiddleware

    def call(_job, payload, _queue)
      payload["seen"] = [Current.user_id, config.class.name]
      yield
    end
  end

  class Ping
    include Sidekiq::Job

    def perform(word) = Sidekiq.redis { |conn| conn.rpush("files:pong", "#{word}:#{Thread.current.name}") }
  end

  class Countdown
    include Sidekiq::Job
    include Sidekiq::Job::Iterable

    def build_enumerator(count, cursor:) = array_enumerator((1..count).to_a, cursor: cursor)

    def each_iteration(number, _count) = Sidekiq.redis { |conn| conn.rpush("files:countdown", number) }
  end
end

class SidekiqFilesInsideTest < Minitest::Test
  def setup
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
  end

  def test_a_new_config_keeps_sidekiq_keys_and_writes_deckhand_settings
    config = Sidekiq::Config.new(concurrency: 3, my_plugin: "on")
    deckhand = config.config
    refute_same Deckhand.config, deckhand
    assert_equal [3, "on", 3], [config.concurrency, config[:my_plugin], deckhand.concurrency]
    config.queues = %w[critical default,2]
    assert_equal %w[critical default default], config.queues
    assert_equal({"critical" => 0, "default" => 2}, config.default_capsule.weights)
    assert_equal ["critical", "default,2"], deckhand.queues
    config.capsule("single") { |cap| cap.concurrency = 1 }.queues = [["reports", 3]]
    assert_equal({"reports" => 3}, deckhand.capsules.fetch("single").weights)
    assert_equal 4, config.total_concurrency
    deckhand.queues = ["low, 2", "high"]
    assert_equal %w[low low high], config.queues, "queues set on the Deckhand side read back"
    deckhand.freeze!
    assert_equal({"low" => 2, "high" => 0}, Sidekiq::Capsule.new("default", config).weights, "reading a booted configuration writes nothing")
    assert_same config.capsule(:single), config.capsules["single"]
    assert_includes assert_raises(Deckhand::DropIn::Unsupported) { config[:fetch_class] = Object }.message, "fetch"
    assert_includes assert_raises(Deckhand::ConfigError) { config.capsule("single").server_middleware { nil } }.message, "frozen once the server has booted"
  end

  def test_lifecycle_events_are_deckhand_server_events
    config = Sidekiq::Config.new
    config.on(:startup) { :started }
    assert_equal :started, config[:lifecycle_events][:startup].first.call
    assert_same config.config.events.handlers(:startup), config[:lifecycle_events][:startup]
    assert_match(/Invalid event name/, assert_raises(ArgumentError) { config.on(:startp) }.message)
    assert_match(/Symbols only/, assert_raises(ArgumentError) { config.on("startup") }.message)
    config.on(:heartbeat) { :visible }
    config.on(:beat) { :beaten }
    assert_equal [:visible, :beaten], [config[:lifecycle_events][:heartbeat].first.call, config[:lifecycle_events][:beat].first.call]
    assert_same config.config.events.handlers(:beat), config[:lifecycle_events][:beat]
  end

  def test_handle_exception_runs_every_handler_and_logs_one_that_raises
    config = Sidekiq::Config.new
    out = StringIO.new
    config.logger = Logger.new(out)
    seen = []
    config.error_handlers << ->(_error, _context) { raise "boom" }
    config.error_handlers << ->(error, context, _config) { seen << [error.message, context] }
    config.error_handlers << proc { |_error, _context, _config = nil| }
    config[:backtrace_cleaner] = ->(lines) { lines.take(1) }
    error = RuntimeError.new("hello").tap { |e| e.set_backtrace(%w[app.rb:1 lib.rb:2]) }
    config.handle_exception(error, "queue" => "q")
    assert_equal [["hello", {queue: "q"}]], seen
    assert_match(/\{"queue":"q"\}\n.*RuntimeError: hello\n.*app\.rb:1\n(?!lib\.rb)/m, out.string, "logged, backtrace cleaned")
    assert_includes out.string, "!!! ERROR HANDLER THREW AN ERROR !!! RuntimeError: boom"
    assert_equal 1, out.string.scan("DEPRECATION: Sidekiq exception handlers now take three arguments").size, "the two-argument handler's line"
    handler = config.error_handlers.to_a.last
    assert_same handler, config.error_handlers.delete(handler)
    assert_equal 2, config.error_handlers.size
  end

  def test_component_gives_a_plugin_the_config_logger_redis_and_events
    require "sidekiq/component"
    plugin = Class.new do
      include Sidekiq::Component

      def initialize(config) = @config = config
    end
    config = Sidekiq::Config.new
    config.redis = {url: ENV.fetch("REDIS_URL")}
    thing = plugin.new(config)
    assert_same config.logger, thing.logger
    assert_equal "PONG", thing.redis { |conn| conn.call("PING") }
    assert_match(/\A.+:#{Process.pid}:\h{12}\z/, thing.identity)
    fired = []
    config.on(:quiet) { fired << :quiet }
    thing.fire_event(:quiet)
    thing.fire_event(:quiet)
    assert_equal [:quiet], fired, "a oneshot event runs its blocks once"
    seen = []
    config.error_handlers << ->(error, context, _config) { seen << [error.message, context[:context]] }
    thread = thing.safe_thread("sweeper") { raise "swept" }
    assert_raises(RuntimeError) { thread.join }
    assert_equal [["swept", "sweeper"]], seen
    assert_equal "sidekiq.sweeper", thread.name
  end

  def test_default_configuration_follows_deckhand_config_and_a_config_put_in_its_place
    first = Sidekiq.default_configuration
    assert_same Deckhand.config, first.config
    assert_same first, Sidekiq.default_configuration
    installed = Sidekiq::Config.new
    Sidekiq.instance_variable_set(:@config, installed)
    assert_same installed, Sidekiq.default_configuration
    assert_same installed.config, Deckhand.config
  ensure
    Deckhand.config = Deckhand::Config.new(redis: {url: ENV.fetch("REDIS_URL")})
  end

  def test_middleware_chain_class_runs_its_entries_in_order
    log = []
    tag = Struct.new(:name, :log) do
      def call(*) = log << name && yield
    end
    one = Class.new(tag)
    two = Class.new(tag)
    chain = Sidekiq::Middleware::Chain.new { |c| c.add(one, "one", log) }
    chain.insert_before(one, two, "two", log)
    assert_equal [two, one], chain.map(&:klass)
    assert_equal :done, chain.invoke { :done }
    assert_equal %w[two one], log
  end

  def test_logger_formatters_print_the_context
    out = StringIO.new
    logger = Sidekiq::Logger.new(out)
    [Sidekiq::Logger::Formatters::Pretty, Sidekiq::Logger::Formatters::WithoutTimestamp].each do |formatter|
      logger.formatter = formatter.new
      Sidekiq::Context.with(tags: %w[a b]) { logger.info("hi") }
    end
    logger.formatter = Sidekiq::Logger::Formatters::JSON.new
    Sidekiq::Context.with(jid: "j1") { logger.info("json") }
    pretty, bare, json = out.string.lines
    if Sidekiq::VERSION.start_with?("8.") # Sidekiq 8's line leads with its coloured level
      assert_match(/\A\e\[1;34mINFO \e\[0m \d{4}-\d\d-\d\dT[\d:.]+Z pid=\d+ tid=\w+ tags=a,b: hi\n\z/, pretty)
      assert_match(/\A\e\[1;34mINFO \e\[0m pid=\d+ tid=\w+ tags=a,b: hi\n\z/, bare)
    else
      assert_match(/\A\d{4}-\d\d-\d\dT[\d:.]+Z pid=\d+ tid=\w+ tags=a,b INFO: hi\n\z/, pretty)
      assert_match(/\Apid=\d+ tid=\w+ tags=a,b INFO: hi\n\z/, bare)
    end
    assert_equal({"jid" => "j1"}, JSON.parse(json)["ctx"])
    logger.level = Logger::WARN
    logger.log_at(:debug) { assert logger.debug? }
    refute logger.info?
  end

  def test_job_logger_logs_start_and_done_with_the_job_context_and_its_level
    config = Sidekiq::Config.new
    out = StringIO.new
    config.logger = Sidekiq::Logger.new(out, level: :warn).tap { |l| l.formatter = Sidekiq::Logger::Formatters::Pretty.new }
    job_logger = Sidekiq::JobLogger.new(config)
    job = {"class" => "Wrapper", "wrapped" => "ReportJob", "jid" => "abc", "log_level" => "info"}
    job_logger.prepare(job) { job_logger.call(job, "default") { nil } }
    start, done = out.string.lines
    # The level where the version's Pretty line puts it: first (8) or before the message (7.3).
    assert_match(/(INFO.*class=ReportJob jid=abc: |class=ReportJob jid=abc INFO: )start/, start)
    assert_match(/(INFO.*class=ReportJob jid=abc elapsed=[\d.]+: |class=ReportJob jid=abc elapsed=[\d.]+ INFO: )done/, done)
  end

  def test_current_attributes_travel_with_the_job_through_deckhand_middleware
    config = Sidekiq::Config.new(concurrency: 1)
    config.redis = {url: ENV.fetch("REDIS_URL")}
    Sidekiq::CurrentAttributes.persist("FilesApp::Current", config)
    config.server_middleware.add(FilesApp::Seen)
    payload = {"class" => "X", "args" => []}
    FilesApp::Current.set(user_id: 42) { config.config.client_middleware.invoke("X", payload, "default", nil) { nil } }
    # As the Sidekiq version writes them: serialized by Active Job (8), a Hash (7.3).
    saved = Sidekiq::VERSION.start_with?("8.") ? ActiveJob::Arguments.deserialize(payload["cattr"]).to_h : payload["cattr"]
    assert_equal({"user_id" => 42}, saved.transform_keys(&:to_s))
    job = JSON.parse(JSON.generate(payload)) # as fetched
    config.config.server_middleware.invoke(nil, job, "default") { nil }
    assert_equal 42, job["seen"].first, "the job ran with the attributes set"
    assert_nil FilesApp::Current.user_id
  end

  def test_sd_notify_sends_states_to_the_notify_socket
    skip("not on JRuby: systemd's socket is a UNIX datagram socket, which JRuby cannot open") if RUBY_ENGINE == "jruby"
    Dir.mktmpdir do |dir|
      path = File.join(dir, "notify")
      socket = Socket.new(:UNIX, :DGRAM)
      socket.bind(Addrinfo.unix(path))
      ENV["NOTIFY_SOCKET"] = path
      assert_equal 7, Sidekiq::SdNotify.ready
      assert_equal "READY=1", socket.recvfrom(16).first
      refute Sidekiq::SdNotify.watchdog?
    ensure
      ENV.delete("NOTIFY_SOCKET")
      socket&.close
    end
  end

  def test_job_iterable_is_deckhands_iterable_job
    assert FilesApp::Countdown.include?(Deckhand::IterableJob)
    require "sidekiq/testing"
    Sidekiq::Testing.inline! { FilesApp::Countdown.perform_async(3) }
    assert_equal %w[1 2 3], Sidekiq.redis { |conn| conn.lrange("files:countdown", 0, -1) }
    [Sidekiq::IterableJob, Sidekiq::Job::Iterable].each do |iterable|
      error = assert_raises(RuntimeError) {
        Class.new {
          include iterable

          def perform = nil
        }
      }

      assert_includes error.message, "must not define #perform"
    end
  end

  def test_configure_embed_runs_a_deckhand_server_in_this_process
    ran = []
    Sidekiq.configure_server { |config| ran << config.concurrency }
    embedded = Sidekiq.configure_embed do |config|
      config.redis = {url: ENV.fetch("REDIS_URL")}
      config.queues = %w[embedded]
      config.logger.level = Logger::WARN
    end
    assert_equal [2], ran, "configure_server blocks run for an embedded server, after its 2 threads are set"
    assert_same embedded, embedded.run
    assert embedded.running?
    require "sidekiq/testing"
    Sidekiq::Testing.disable! { FilesApp::Ping.set(queue: "embedded").perform_async("hi") }
    _, pong = Sidekiq.redis { |conn| conn.call("BLPOP", "files:pong", 10) }
    assert_match(/\Ahi:deckhand-default-\d+\z/, pong)
    embedded.quiet
    embedded.stop
    refute embedded.running?
    require "sidekiq/metrics/query"
    result = Sidekiq::Metrics::Query.new.for_job("FilesApp::Ping", minutes: 5)
    assert_equal 5, Sidekiq::VERSION.start_with?("8.") ? result.job_results["FilesApp::Ping"].hist.size : result.buckets.size
    assert_equal [1, 0], result.job_results["FilesApp::Ping"].totals.values_at("p", "f"), "the stop flushed the job's metrics"
    assert_equal ["FilesApp::Ping"], Sidekiq::Metrics::Query.new.top_jobs(class_filter: /Ping/).job_results.keys
    assert_raises(Deckhand::ConfigError) { Sidekiq.configure_embed {} }
  ensure
    embedded&.stop
    Sidekiq.instance_variable_set(:@server_blocks, nil)
    Deckhand::Lifecycle.reset! # a stopped server leaves the process stopping; the other tests run jobs
    Deckhand.config = Deckhand::Config.new(redis: {url: ENV.fetch("REDIS_URL")})
  end

  # Sidekiq's bin/sidekiqload with WARM=1 runs, stops and runs again the one embedded server.
  def test_an_embedded_server_runs_again_after_a_stop
    embedded = Sidekiq.configure_embed do |config|
      config.redis = {url: ENV.fetch("REDIS_URL")}
      config.queues = %w[embedded]
      config.logger.level = Logger::WARN
    end
    require "sidekiq/testing"
    %w[first second].each do |round|
      assert_same embedded, embedded.run
      error = assert_raises(Deckhand::Error) { embedded.run }
      assert_includes error.message, "already running; call stop before running it again"
      Sidekiq::Testing.disable! { FilesApp::Ping.set(queue: "embedded").perform_async(round) }
      _, pong = Sidekiq.redis { |conn| conn.call("BLPOP", "files:pong", 10) }
      assert_match(/\A#{round}:deckhand-default-\d+\z/, pong)
      embedded.stop
      refute embedded.running?
    end
  ensure
    embedded&.stop
    Deckhand::Lifecycle.reset! # a stopped server leaves the process stopping; the other tests run jobs
    Deckhand.config = Deckhand::Config.new(redis: {url: ENV.fetch("REDIS_URL")})
  end

  def test_sidekiqmon_shows_totals_processes_and_queues
    require "sidekiq/monitor"
    Sidekiq.redis { |conn| conn.sadd("queues", "mon") && conn.lpush("queue:mon", "{}") }
    out, = capture_io { Sidekiq::Monitor::Status.new.display }
    assert_includes out, "Sidekiq #{Sidekiq::VERSION}"
    assert_match(/---- Overview ----\n  Processed: 0\n.*   Enqueued: 1\n/m, out)
    assert_includes out, "---- Processes (0) ----"
    assert_match(/---- Queues \(1\) ----\nNAME\s+SIZE\s+LATENCY\nmon\s+1\s+0.00/, out)
  end

  def test_csrf_protection_lets_reads_and_same_origin_posts_through
    require "sidekiq/web/csrf_protection"
    require "rack/mock"
    app = Sidekiq::Web::CsrfProtection.new(->(env) { [200, {}, [env[:csrf_token].to_s]] })
    get = Rack::MockRequest.new(app).get("/")
    assert_equal 200, get.status
    token = get.body
    assert_match(/\Adeckhand_csrf=#{token};/, get.headers["set-cookie"])
    cookie = {"HTTP_COOKIE" => "deckhand_csrf=#{token}"}
    assert_equal 403, Rack::MockRequest.new(app).post("/", cookie.merge(params: {"_csrf" => "forged"})).status
    assert_equal 200, Rack::MockRequest.new(app).post("/", cookie.merge(params: {"_csrf" => token})).status
    assert_equal 200, Rack::MockRequest.new(app).post("/", "HTTP_SEC_FETCH_SITE" => "same-origin").status
    assert_equal 403, Rack::MockRequest.new(app).post("/", "HTTP_SEC_FETCH_SITE" => "cross-site").status
  end

  def test_csrf_protection_behind_a_session_checks_the_sessions_masked_token
    require "sidekiq/web/csrf_protection"
    require "rack/mock"
    app = Sidekiq::Web::CsrfProtection.new(->(env) { [200, {}, [env[:csrf_token].to_s]] })
    session = {}
    request = ->(method, params = {}, into = session) { Rack::MockRequest.new(app).request(method, "/", "rack.session" => into, :params => params) }
    first = request.call("GET").body
    second = request.call("GET").body
    assert_equal [88, 88], [first.size, second.size]
    refute_equal first, second, "masked afresh on every request"
    assert_equal 200, request.call("POST", {"authenticity_token" => first}).status
    assert_equal 200, request.call("POST", {"authenticity_token" => second}).status
    forged = ["\0".b * 64].pack("m0")
    refused = request.call("POST", {"authenticity_token" => forged})
    assert_equal [403, "Forbidden"], [refused.status, refused.body]
    assert_equal 403, request.call("POST").status, "no token"
    assert_equal 403, request.call("POST", {"authenticity_token" => first}, {}).status, "a session without the secret"
    assert_equal 403, request.call("POST", {"authenticity_token" => first}, {"session_id" => "other"}).status
    assert_equal 403, request.call("POST", {"authenticity_token" => "short"}).status
  end

  def test_rails_g_sidekiq_job_writes_a_sidekiq_job_and_its_test
    require "rails/generators"
    Dir.mktmpdir do |root|
      capture_io { Rails::Generators.invoke("sidekiq:job", ["HardWorkJob", "--queue", "low"], destination_root: root) }
      job = File.read(File.join(root, "app/sidekiq/hard_work_job.rb"))
      assert_includes job, "class HardWorkJob\n  include Sidekiq::Job\n  sidekiq_options queue: \"low\""
      assert_includes File.read(File.join(root, "test/sidekiq/hard_work_job_test.rb")), 'Sidekiq::Queues["low"].size'
      FileUtils.mkdir_p(File.join(root, "spec"))
      capture_io { Rails::Generators.invoke("sidekiq:job", ["Report"], destination_root: root) }
      assert_includes File.read(File.join(root, "spec/sidekiq/report_job_spec.rb")), "RSpec.describe ReportJob"
      Object.class_eval(job, "hard_work_job.rb")
      assert_equal "low", HardWorkJob.get_sidekiq_options["queue"]
    end
  ensure
    Object.send(:remove_const, :HardWorkJob) if defined?(HardWorkJob)
  end

  def test_transactional_push_needs_active_record_and_then_pushes_after_commit
    assert_includes assert_raises(Deckhand::DropIn::Unsupported) { Sidekiq.transactional_push! }.message, "Active Record 7.2"
    require "active_record"
    require "activerecord-jdbcsqlite3-adapter" if RUBY_ENGINE == "jruby" # its "sqlite3" adapter: the sqlite3 gem is a C extension
    require "sidekiq/testing"
    ActiveRecord::Base.establish_connection(adapter: "sqlite3", database: ":memory:")
    assert Sidekiq.transactional_push!
    refute Sidekiq.server?, "the Railtie's file loads part of Deckhand::CLI: that makes no server process"
    queued = -> { Sidekiq.redis { |conn| conn.lrange("queue:tx", 0, -1) }.map { |json| JSON.parse(json)["args"] } }
    Sidekiq::Testing.disable! do
      ActiveRecord::Base.transaction do
        FilesApp::Ping.set(queue: "tx").perform_async("kept")
        assert_empty queued.call, "pushed before the commit"
      end
      ActiveRecord::Base.transaction do
        FilesApp::Ping.set(queue: "tx").perform_async("rolled back")
        raise ActiveRecord::Rollback
      end
      client = Sidekiq::TransactionAwareClient.new
      ActiveRecord::Base.transaction { assert_match(/\A\h{24}\z/, client.push("class" => "FilesApp::Ping", "args" => ["own"], "queue" => "tx")) }
    end
    assert_equal [["kept"], ["own"]], queued.call.reverse
  ensure
    Sidekiq.default_job_options.delete("client_class")
  end
end
