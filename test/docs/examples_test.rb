# frozen_string_literal: true

require "test_helper"
require "base64"
require "active_support"
require "active_support/core_ext/numeric/time"
require "deckhand/api"
require "deckhand/batch"
require "deckhand/workflow"
require "deckhand/embedded"
require "deckhand/web"
require_relative "doc_examples"
require "support/cut_reply_proxy"

# Where the constants the guides' examples define land (their job classes,
# limiters, callbacks), and the stand-ins for the application classes they
# mention (User, Stripe, ...). Emptied after each test.
module DocsSandbox; end

# The Ruby examples of the README and the guides, read from the Markdown
# itself, so a guide cannot drift from the code: every ```ruby block must be
# valid Ruby, and every block marked `<!-- example: NAME -->` is run here
# against a real Redis, with what it claims checked afterwards.
class DocsExamplesTest < Minitest::Test
  ENV_SET = %w[REDIS_URL EU_REDIS_URL DECKHAND_KEY_2 DECKHAND_METRICS_TOKEN].freeze

  def self.blocks = Deckhand::DocExamples.blocks

  # The unmarked examples, each with why no test runs it: a new example is
  # either marked and run (here, or beside this file: cluster_, rails_,
  # gemfile_, iterable_, swarm_example(s)_test.rb), or listed here with its
  # reason. Key: the file and the example's first two lines.
  NOT_RUN = {
    "docs/web.md: authenticate :user, ->(user) { user.admin? } do |   mount Deckhand::Web => \"/deckhand\"" =>
      "Devise's `authenticate` routes helper: Devise is not in the bundle (the session constraint below it runs in rails_examples_test.rb)",
    "docs/embedding.md: # config/puma.rb (Puma 6 names; Puma 7 calls them before_worker_boot / before_worker_shutdown) | deckhand = nil" =>
      "Puma's configuration DSL: Puma is not in the bundle (Deckhand.embed itself runs in embedding-start)",
    "docs/embedding.md: on_booted do |   deckhand = Deckhand.embed { |c| c.concurrency = 2 }.start" =>
      "Puma's configuration DSL: Puma is not in the bundle (Deckhand.embed itself runs in embedding-start)",
    "docs/profiling.md: Deckhand::Web.profile_viewer = Deckhand::Web::FIREFOX_PROFILER" =>
      "uploads profiles to Firefox Profiler's service, which no test may reach (the upload runs against a local store in test/unit/web/pages/profiles_page_test.rb)"
  }.freeze

  def setup
    super
    @env = ENV.to_h.slice(*ENV_SET)
    ENV["REDIS_URL"] = Deckhand::RedisHarness.url
    ENV["EU_REDIS_URL"] = eu_url
    ENV["DECKHAND_KEY_2"] = Base64.strict_encode64("k" * 32)
    ENV["DECKHAND_METRICS_TOKEN"] = "s3cret"
    Deckhand::Batch.install(Deckhand.config)
    stand_ins
  end

  def teardown
    DocsSandbox.constants.each { |name| DocsSandbox.send(:remove_const, name) }
    (DocsSandbox.singleton_methods - [:name]).each { |name| DocsSandbox.singleton_class.send(:remove_method, name) }
    ENV_SET.each { |key| @env.key?(key) ? ENV[key] = @env[key] : ENV.delete(key) }
    Deckhand::Web.authorize
    super
  end

  # Runs the named examples in order, as the guide's reader would; returns
  # the value of the last one's last line.
  def run_example(*names)
    names.map do |name|
      block = Deckhand::DocExamples.fetch(name)
      DocsSandbox.module_eval(block.code, block.path, block.line)
    end.last
  end

  def sandbox(name) = DocsSandbox.const_get(name)

  def queued(queue, client: redis) = client.call("LRANGE", "queue:#{queue}", 0, -1).map { |raw| JSON.parse(raw) }

  # The second Redis of the sharding guide: another database of the test server.
  def eu_url = Deckhand::RedisHarness.url.sub(%r{/0\z}, "/1")

  def eu_redis = @eu_redis ||= RedisClient.new(url: eu_url)

  def test_every_ruby_example_is_valid_ruby
    self.class.blocks.each do |block|
      RubyVM::InstructionSequence.compile(block.code, block.file, block.file, block.line)
    rescue SyntaxError => e
      flunk("#{block.file}:#{block.line}: the example is not valid Ruby: #{e.message}")
    end
    assert_operator self.class.blocks.size, :>=, 50, "the docs' examples were found"
  end

  def test_every_unmarked_example_says_why_it_is_not_run
    unmarked = self.class.blocks.reject(&:name)
    keys = unmarked.map { |block| "#{block.file}: #{block.code.lines.first(2).map(&:chomp).join(" | ")}" }
    keys.each { |key| assert NOT_RUN.key?(key), "#{key}: mark it `<!-- example: NAME -->` and run it here, or list it in NOT_RUN with the reason" }
    (NOT_RUN.keys - keys).each { |key| flunk("NOT_RUN lists #{key}, which no doc holds any more (or whose first line changed)") }
  end

  # `require "deckhand"` does not load the data API (a server never needs
  # it): an example that names it, copied into a script, must require it.
  def test_every_example_naming_the_data_api_requires_it
    missing = self.class.blocks.select { |block| block.code.include?("Deckhand::API") && !block.code.include?(%(require "deckhand/api")) }
    assert_empty missing.map { |block| "#{block.file}:#{block.line}" }
  end

  def test_every_named_example_is_run_by_a_test
    source = Dir[File.join(__dir__, "*_test.rb")].map { |file| File.read(file) }.join
    Deckhand::DocExamples.named.each_key do |name|
      assert source.include?(%("#{name}")), "example #{name} is marked in the docs but no test runs it"
    end
  end

  def test_readme_defines_a_job_and_enqueues_it
    run_example("readme-job", "readme-enqueue")
    job = sandbox(:WelcomeEmailJob)
    mailers = queued("mailers")
    assert_equal [[1], [2], [3], [42]], mailers.map { |j| j["args"] }.sort
    assert(mailers.all? { |j| j["class"] == job.name && j["retry"] == 10 })
    assert_equal [[42]], queued("critical").map { |j| j["args"] }
    assert_equal ["WelcomeEmailJob"], queued("default").map { |j| j["class"] }
    scheduled = redis.call("ZRANGE", "schedule", 0, -1, "WITHSCORES")
    assert_in_delta Time.now.to_f + 300, scheduled.flatten.last.to_f, 10
  end

  def test_readme_configures_the_server
    run_example("readme-configure")
    config = Deckhand.config
    assert_equal 20, config.concurrency
    reports = config.all_capsules.find { |c| c.name == "reports" }
    assert_equal [1, ["reports"]], [reports.concurrency, reports.queues]
    imports = config.all_capsules.find { |c| c.name == "imports" }
    assert_equal [4, ["imports"]], [imports.concurrency, imports.queues]
  end

  def test_a_fiber_capsule_beside_thread_capsules
    run_example("concurrency-fiber-capsule")
    capsules = Deckhand.config.all_capsules.to_h { |c| [c.name, [c.concurrency, c.queues, c.fibers?]] }
    assert_equal({"default" => [5, ["default"], false], "reports" => [1, ["reports"], false],
      "io" => [1000, %w[webhooks fetches], true]}, capsules)
  end

  def test_job_options_overview_and_encrypted_arguments
    run_example("job-options-encryption", "job-options-overview")
    options = sandbox(:SyncAddressJob).deckhand_options
    assert_equal [600, 3600, true], options.values_at("unique_for", "expires_in", "encrypt")
    job = queued("default").first
    assert_equal sandbox(:ChargeJob).name, job["class"]
    assert_equal 42, job["args"].first
    refute_includes JSON.generate(job), "4111", "the card number is stored encrypted"
  end

  def test_a_chunked_job_runs_its_waiting_jobs_in_one_call_and_retries_a_failed_member_alone
    employee = Struct.new(:emp_no, :synced) { def sync! = synced << emp_no }
    employees = Module.new do
      @queries = []
      @synced = []
      class << self
        attr_reader :queries, :synced
      end
      define_singleton_method(:find_many) do |ids|
        @queries << ids
        ids.select { |id| id < 99_999 }.to_h { |id| [id, employee.new(id, @synced)] }
      end
    end
    DocsSandbox.const_set(:Employee, employees)
    run_example("chunks-define")
    with_server(new_config(concurrency: 1)) do
      wait_for(message: "the unknown employee's job in retry") { redis.call("ZCARD", "retry") == 1 }
    end
    assert_equal [[10001, 10002, 99999]], employees.queries, "one call, one query, for the three jobs"
    assert_equal [10001, 10002], employees.synced
    failed = zset("retry").first.first
    assert_equal [[99999], "KeyError", "no employee 99999"], failed.values_at("args", "error_class", "error_message")
  end

  def test_periodic_registers_its_entries
    run_example("periodic-register")
    entries = Deckhand.config.periodic.entries.to_h { |e| [e.name, e] }
    assert_equal %w[digest-ny heartbeat nightly_report], entries.keys.sort
    assert_equal "America/New_York", entries["digest-ny"].timezone
  end

  def test_limiters_gate_their_blocks
    run_example("limits-limiters")
    assert_equal 2, sandbox(:Stripe)::Charge.calls
    assert_equal 1, sandbox(:ShopifyAPI).calls
    names = Deckhand::API.new.limiters.map { |l| l["name"] }
    assert_includes names, "stripe"
    assert_includes names, "shopify"
  end

  def test_throttles_configured_then_changed_at_run_time
    run_example("limits-throttle-config", "limits-throttle-api")
    api = Deckhand::API.new
    assert_equal({"concurrency" => 3}, api.throttle("exports").limit, "reset: back to the configuration")
    assert_equal({"rate" => 600, "per" => 60}, api.throttle("api_calls").limit)
    assert_nil api.throttle("reports").limit
  end

  def test_a_batch_of_imports_with_its_callbacks
    run_example("batches-import-job", "batches-tour")
    jobs = queued("default")
    assert_equal [[1, 1000], [1001, 2000], [2001, 2500]], jobs.map { |j| j["args"] }.sort
    status = Deckhand::Batch::Status.new(jobs.first["bid"])
    assert_equal [3, 3, "Import 2026-11 customers"], [status.total, status.pending, status.description]
    assert_equal %w[complete death success], status.callbacks.map { |c| c["event"] }.sort
  end

  def test_a_job_is_profiled_then_its_profile_read
    run_example("profiling-push")
    job = queued("default").first
    assert_equal [sandbox(:ReportJob).name, "mike"], job.values_at("class", "profile")
    assert_equal "nightly", sandbox(:NightlyExportJob).deckhand_options["profile"]
    with_server(new_config(heartbeat_interval: 0.1)) { wait_for(message: "the profile") { redis.call("ZCARD", "profiles") == 1 } }
    out, = capture_io { run_example("profiling-read") }
    assert_match(/\Amike-#{job["jid"]} #{sandbox(:ReportJob).name} ran [\d.]+ s, \d+ bytes \((firefox|speedscope)\)\n\z/, out)
  end

  def test_client_middleware_runs_at_the_push_and_again_when_the_job_comes_due
    run_example("middleware-due")
    assert_equal [1], redis.call("ZRANGE", "schedule", 0, -1).map { |raw| JSON.parse(raw)["handed"] }
    config = Deckhand.config
    Deckhand::Server::Chores::Scheduler.new(config: config, store: config.store, process_count: -> { 1 }).enqueue_due(now: Time.now.to_f + 120)
    assert_equal [[[7], 2]], queued("default").map { |job| job.values_at("args", "handed") }
  end

  def test_debounce_and_dedupe_collapse_bursts
    run_example("debounce-reindex")
    scheduled = redis.call("ZRANGE", "schedule", 0, -1).map { |raw| JSON.parse(raw)["args"] }
    assert_equal [["doc-1", 2], ["doc-2", 1]], scheduled.sort
    assert_nil run_example("dedupe-sync"), "the keep push returns nil"
    assert_equal [[42, "billing"]], queued("default").map { |job| job["args"] }
  end

  def test_the_dashboards_texts_are_read_from_ruby
    assert_equal "rtl", run_example("locale-texts")
    block = Deckhand::DocExamples.fetch("locale-texts").code
    pt = Deckhand::Locale["pt"]
    assert_includes block, %(# => "#{pt.t("count.jobs", count: 1500)}")
    assert_includes block, %(# => "#{pt.ago(Time.now - 90, Time.now)}")
    assert_includes block, %(# => #{Deckhand::Locale.names.inspect})
  end

  def test_a_class_is_paused_and_resumed
    assert_equal 0, run_example("web-class-pause")
    assert_empty Deckhand::API.new.class_pauses.paused
  end

  def test_an_iterable_job_is_pushed_and_cancelled
    run_example("iterable-backfill")
    job = queued("low").first
    assert_equal [sandbox(:BackfillJob).name, [42]], [job["class"], job["args"]]
    assert Deckhand::API.new.iterations([job["jid"]]).fetch(job["jid"]).cancelled?
  end

  def test_reliability_settings
    run_example("reliability-tuning", "reliability-reliable-push")
    config = Deckhand.config
    assert_equal [2, 40, 2, 300, 3], [config.heartbeat_interval, config.heartbeat_ttl, config.reaper_interval, config.hung_after, config.max_recoveries]
    assert_equal [true, 1_000], [config.reliable_push, config.reliable_push_limit]
  end

  # The safe retries of the reliability guide, against a push whose
  # connection is cut before its second slice reaches Redis.
  def test_a_bulk_push_cut_partway_is_finished_by_the_safe_retry
    with_cut_at(2, ->(command) { command.first.casecmp?("LPUSH") }) do |proxy|
      run_example("reliability-bulk-retry")
      sandbox(:Importer).import((1..2500).to_a)
      assert_equal 1, proxy.cuts
    end
    assert_equal (1..2500).to_a, queued("default").map { |j| j["args"].first }.sort, "each job once"
  end

  def test_a_batch_cut_partway_is_finished_by_the_safe_retry
    redis.call("SCRIPT", "LOAD", Deckhand::Store::Scripts::BatchAdd.source)
    sha = Deckhand::Store::Scripts::BatchAdd.sha
    with_cut_at(2, ->(command) { command.first.casecmp?("EVALSHA") && command[1] == sha }) do |proxy|
      run_example("reliability-bulk-retry", "reliability-batch-retry")
      assert_equal 1, proxy.cuts
    end
    jobs = queued("default")
    assert_equal (1..2500).to_a, jobs.map { |j| j["args"].first }.sort, "each job once"
    status = Deckhand::Batch::Status.new(jobs.first["bid"], config: new_config)
    assert_equal [2500, 2500], [status.total, status.pending]
    assert_equal "0", redis.call("HGET", Deckhand::Store::Layout::PlainBatches.batch(status.bid), "hold"), "let go"
  end

  def test_operations_settings_and_the_scrape_token
    run_example("operations-settings", "operations-scrape-token")
    assert_equal 9394, Deckhand.config.metrics_port
    app = Deckhand::Web.new(config: Deckhand.config)
    assert_equal 403, Rack::MockRequest.new(app).get("/metrics?format=prometheus").status
    assert_equal 200, Rack::MockRequest.new(app).get("/metrics?format=prometheus", "HTTP_AUTHORIZATION" => "Bearer s3cret").status
  end

  # docs/redis.md: each example configures as it says (the connections
  # themselves run against real servers in redis_connections_test.rb and
  # redis_tls_test.rb).
  def test_redis_connections_by_url_over_tls_as_an_acl_user_and_through_sentinels
    assert_equal "redis://10.0.0.5:6379/2", run_example("redis-url")
    assert_equal [2, 2], Deckhand.config.redis.values_at(:connect_timeout, :read_timeout)
    Deckhand.config = new_config # each guide's example stands alone
    assert_equal "rediss://redis.internal:6380/0", run_example("redis-tls")
    assert_equal({ca_file: "/etc/ssl/redis/ca.pem", cert: "/etc/ssl/redis/client.pem", key: "/etc/ssl/redis/client.key"}, Deckhand.config.redis[:ssl_params])
    Deckhand.config = new_config
    assert_equal "redis://10.0.0.5:6379/0", run_example("redis-acl")
    assert_equal "deckhand", Deckhand.config.redis[:username]
    Deckhand.config = new_config
    assert_equal "redis+sentinel://10.0.0.1:26379,10.0.0.2:26379,10.0.0.3:26379/mymaster", run_example("redis-sentinel")
  end

  def test_a_json_log_line_has_the_documented_fields
    assert_equal({"tenant" => "acme"}, run_example("operations-json-log"))
    block = Deckhand::DocExamples.fetch("operations-json-log")
    assert_equal %w[ts pid tid lvl ctx msg], JSON.parse(block.code[/^line.keys\s+# => (.*)$/, 1])
    documented = File.read(File.join(Deckhand::DocExamples::ROOT, "docs/operations.md"))[/^\| Field \| Always.*?\n\n/m].scan(/^\| `(\w+)`/).flatten
    assert_equal %w[ts pid tid lvl ctx msg], documented, "the table names every field"
    io = StringIO.new
    Deckhand::Logging::Logger.build(io, format: :json).info("x")
    assert_equal %w[ts pid tid lvl msg], JSON.parse(io.string).keys, "ctx only with context"
  end

  def test_operations_eviction_settings
    run_example("operations-eviction")
    assert_equal [true, 60], [Deckhand.config.refuse_evicting_redis, Deckhand.config.eviction_check_interval]
  end

  def test_sharding_pushes_to_another_redis
    eu_size = run_example("sharding-pool", "sharding-via", "sharding-api")
    assert_equal [[7], [42]], queued("invoices", client: eu_redis).map { |j| j["args"] }.sort
    assert_equal [[8]], queued("invoices").map { |j| j["args"] }, "set(pool: US_STORE) sent this one to the other Redis"
    assert_equal 1, eu_redis.call("ZCARD", "schedule")
    assert_equal [[1], [2]], queued("default", client: eu_redis).select { |j| j["class"].end_with?("ExportJob") }.map { |j| j["args"] }.sort
    assert_equal 2, eu_size, "the API reads the EU queue's size"
  ensure
    eu_redis.call("FLUSHDB")
  end

  def test_an_embedded_server_starts_and_stops
    run_example("embedding-start")
    log = sandbox(:Rails).logger.lines
    assert_match(/\ADeckhand \S+ running\z/, log.first)
    assert_equal 1, sandbox(:StatsD).flushes
  end

  def test_the_periodic_api_reads_and_acts_on_the_leaders_schedule
    store = Deckhand::RedisHarness.store
    entries = {"nightly_report" => {"cron" => "0 2 * * *", "timezone" => "Europe/Paris", "class" => "RecordJob", "queue" => "reports", "args" => ["daily"]}}
    Deckhand::Store::Features::PeriodicState.write_schedule(store, {"leader" => "web-1:812:ab12cd", "entries" => entries})
    Deckhand::Store::Scripts::PeriodicLease.new(store).acquire("web-1:812:ab12cd", ttl_ms: 60_000)
    out, = capture_io { run_example("periodic-api") }
    assert_match(/\Anightly_report 0 2 \* \* \* Europe\/Paris/, out)
    refute Deckhand::API.new.periodic.fetch("nightly_report").paused?, "paused, then resumed"
    assert_equal [["daily"]], queued("reports").map { |j| j["args"] }
  end

  def test_the_periodic_history_lists_each_tick_with_what_became_of_it
    store = Deckhand::RedisHarness.store
    entries = {"nightly_report" => {"cron" => "0 2 * * *", "timezone" => "UTC", "class" => "RecordJob", "queue" => "reports"}}
    Deckhand::Store::Features::PeriodicState.write_schedule(store, {"leader" => "web-1:812:ab12cd", "entries" => entries})
    history = Deckhand::Store::Scripts::PeriodicHistory.new(store)
    history.call(name: "nightly_report", record: {"tick" => 1_764_000_000, "state" => "failed", "jid" => "c" * 24, "error" => "PG::ConnectionBad"})
    history.call(name: "nightly_report", record: {"tick" => 1_764_086_400, "state" => "skipped", "reason" => "paused"})
    out, = capture_io { run_example("periodic-history") }
    lines = out.lines.map(&:split)
    assert_equal [["skipped", nil, "paused"], ["failed", "c" * 24, "PG::ConnectionBad"]], lines.map { |l| [l[3], (l[4] if l.size > 5), l[-1]] }
  end

  def test_an_apis_own_too_many_requests_error_is_treated_as_over_a_limit
    DocsSandbox.const_set(:Faraday, Module.new)
    DocsSandbox::Faraday.const_set(:TooManyRequestsError, Class.new(StandardError))
    run_example("limits-over-limit-error")
    backoff, reschedule = Deckhand::Limiter.policy_for(DocsSandbox::Faraday::TooManyRequestsError.new)
    assert_equal [120, 10], [backoff.call(2, {}), reschedule]
  end

  def test_batches_installed_on_a_config_of_ones_own
    config = run_example("batches-install")
    assert_equal ["callbacks", 3600], [config.batches.callback_queue, config.batches.success_ttl]
  end

  def test_batches_read_for_a_dashboard
    run_example("batches-import-job", "batches-tour")
    bid = queued("default").first["bid"]
    status = Deckhand::Batch::Status.new(bid)
    DocsSandbox.define_singleton_method(:config) { Deckhand.config }
    DocsSandbox.define_singleton_method(:bid) { bid }
    DocsSandbox.define_singleton_method(:status) { status }
    assert_equal 3, run_example("batches-listing")["total"]
  end

  def test_the_dashboard_in_a_config_ru_with_basic_authentication
    ENV["DECKHAND_PASSWORD"] = "pw"
    app = rack_app("web-config-ru")
    assert_equal 200, Rack::MockRequest.new(app).get("/queues").status
    guarded = rack_app("web-basic-auth")
    assert_equal 401, Rack::MockRequest.new(guarded).get("/queues").status
    assert_equal 401, Rack::MockRequest.new(guarded).get("/queues", "HTTP_AUTHORIZATION" => basic("admin", "nope")).status
    assert_equal 200, Rack::MockRequest.new(guarded).get("/queues", "HTTP_AUTHORIZATION" => basic("admin", "pw")).status
  ensure
    ENV.delete("DECKHAND_PASSWORD")
  end

  # The example sets a hook, then removes it: both lines are checked.
  def test_read_only_users
    run_example("web-authorize")
    assert_nil Deckhand::Web.authorizer, "the bare call removes the hook"
    first = Deckhand::DocExamples.fetch("web-authorize")
    DocsSandbox.module_eval(first.code.lines.first, first.path, first.line)
    user = Struct.new(:admin?)
    app = Deckhand::Web.new(config: Deckhand.config)
    pause = lambda do |admin|
      env = {:params => {"action" => "pause"}, "HTTP_SEC_FETCH_SITE" => "same-origin", "warden" => Struct.new(:user).new(user.new(admin))}
      Rack::MockRequest.new(app).post("/queues/mail", env)
    end
    refused = pause.call(false)
    assert_equal 403, refused.status, refused.body
    refute Deckhand::API.new.queue("mail").paused?
    assert_equal 303, pause.call(true).status
    assert Deckhand::API.new.queue("mail").paused?
  end

  def test_the_data_api_tour
    50.times { |i| Deckhand::Client.push("class" => "ReportJob", "args" => [i], "queue" => "mailers") }
    jobs = Deckhand::API.new.queue("mailers").jobs(page: 1, per_page: 50)
    redis.call("ZADD", "retry", Time.now.to_f, JSON.generate("class" => "ReportJob", "args" => [1], "jid" => "b4a577edbccf1d805744efa9",
      "queue" => "mailers", "error_class" => "Net::ReadTimeout", "error_message" => "timed out", "retry_count" => 1))
    redis.call("SADD", "processes", "h:1:a")
    redis.call("HSET", "h:1:a", "info", JSON.generate("hostname" => "h", "concurrency" => 10, "queues" => ["mailers"]), "busy", "0", "beat", Time.now.to_f.to_s)
    tally = Deckhand::Store::Records::ExecutionMetrics::Tally.new
    tally.record("ReportJob", 12.0, false)
    Deckhand::Store::Records::ExecutionMetrics.write(Deckhand.config.store, tally.take)
    key = Deckhand::API.new.retries.find_jid("b4a577edbccf1d805744efa9").key
    DocsSandbox.define_singleton_method(:jid) { jobs[40].jid }
    DocsSandbox.define_singleton_method(:job) { jobs[41] }
    DocsSandbox.define_singleton_method(:key) { key }
    DocsSandbox.define_singleton_method(:identity) { "h:1:a" }
    series = nil
    out, = capture_io { series = run_example("web-data-api") }
    assert_equal "h 0/10 0 KB\n", out
    assert_equal 24, series.size
    assert_equal ["b4a577edbccf1d805744efa9"], Deckhand::API.new.queue("mailers").jobs(page: 1, per_page: 5).map(&:jid),
      "cleared, then the retry went back to it"
    assert_equal 0, Deckhand::API.new.retries.size
    assert_equal ["TSTP"], redis.call("LRANGE", "h:1:a-signals", 0, -1)
  end

  def test_a_fair_queue_takes_each_push_into_its_tenants_share
    DocsSandbox.const_set(:ReportJob, Class.new { include Deckhand::Job })
    DocsSandbox::ReportJob.deckhand_options(queue: "reports")
    run_example("fair-queues-configure")
    # The first push found the queue empty and went straight onto it; the next two wait their turn.
    assert_equal ["acme"], queued("reports").map { |job| job["tenant"] }
    tenants = Deckhand::API.new.queue("reports").tenants(10)
    assert_equal [["globex", 1], ["initech", 1]], tenants.map { |t| [t.name, t.size] }.sort
  end

  def test_jobs_pushed_with_a_priority_wait_at_their_level
    run_example("priority-push")
    level = ->(n) { redis.call("LRANGE", "queue:default~r#{n}", 0, -1).reverse.map { |raw| JSON.parse(raw)["args"] } }
    assert_equal [[[1]], [[2], [4]], [[3]]], [queued("default").map { |job| job["args"] }, level.call(-10), level.call(5)]
    assert_equal 4, Deckhand::API.new.queue("default").size
  end

  def test_a_dashboard_over_two_redis_servers
    run_example("sharding-dashboard")
    eu_redis.call("SADD", "queues", "invoices")
    eu_redis.call("LPUSH", "queue:invoices", JSON.generate("class" => "InvoiceJob", "args" => [1], "jid" => "e" * 24, "queue" => "invoices"))
    app = Deckhand::Web
    eu = Rack::MockRequest.new(app).get("/shards/eu/queues", "HTTP_ACCEPT" => "text/html")
    assert_equal 200, eu.status
    assert_includes eu.body, "invoices"
    refute_includes Rack::MockRequest.new(app).get("/queues", "HTTP_ACCEPT" => "text/html").body, "invoices"
  ensure
    Deckhand::Web.shards = nil
    eu_redis.call("FLUSHDB")
  end

  def test_a_partitioned_queue_spreads_its_pushes
    run_example("partitions-configure")
    12.times { |i| Deckhand::Client.push("class" => "ReportJob", "args" => [i]) }
    queue = Deckhand::API.new.queue("default")
    assert_equal 6, queue.partitions.size
    assert_equal [2] * 6, queue.partitions.map(&:size), "round-robin over the six lists"
  end

  def test_a_partitioned_queue_s_throttle_is_split_over_its_partitions
    run_example("limits-throttle-partitioned")
    limits = Deckhand::Server::Fetch::ThrottleLimits.new(Deckhand.config.throttle, logger: QUIET_LOGGER, partitions: Deckhand.config.partitions).limits
    names = Deckhand.config.partitions.names("default")
    assert_equal [2, 2, 1, 1, 1, 1], names.map { |name| limits[name].concurrency }
    assert_equal [100.0] * 6, names.map { |name| limits[name].rate }
    assert_equal({"rate" => 600, "per" => 60, "concurrency" => 8}, Deckhand::API.new.throttle("default").limit)
  end

  def test_a_workflow_s_chunked_steps_each_give_their_own_result
    run_example("workflows-jobs")
    config = Deckhand::Workflow.install(new_config(concurrency: 4))
    ended = with_server(config) { run_example("workflows-kinds") }
    assert_equal "succeeded", ended["state"]
    wid = redis.call("ZRANGE", "deckhand:workflows", 0, -1).first
    assert_includes redis.call("HVALS", "deckhand:workflow:#{wid}:results"), (0...4).sum { |part| 100 + part }.to_s,
      "the merge summed each part's own result"
  end

  def test_a_workflow_fans_out_and_in_and_a_caller_waits_for_a_result
    run_example("workflows-jobs")
    config = Deckhand::Workflow.install(new_config(concurrency: 4))
    status = nil
    with_server(config) do
      status = run_example("workflows-push")
      assert_equal %w[succeeded 12 12 0], status.values_at("state", "total", "succeeded", "cancelled")
      assert_equal({"url" => "/thumbs/7.png"}, run_example("workflows-result"))
    end
    assert_equal [["cancelled"], ["cancelled"]], run_example("workflows-operate")
    assert_equal %w[cancelled succeeded], Deckhand::API.new.workflows.page(1, 25).map(&:state)
    grown = with_server(config) { run_example("workflows-grow") }
    assert_equal %w[succeeded 6 6], grown.values_at("state", "total", "succeeded")
    assert_includes redis.call("HVALS", "deckhand:workflow:#{grown["id"]}:results"), (0...3).sum { |part| 100 + part }.to_s,
      "the merge declared at the push summed the parts added at run time"
    sub = with_server(config) { run_example("workflows-sub") }
    assert_equal %w[succeeded 7 7], sub.values_at("state", "total", "succeeded")
    assert_includes redis.call("HVALS", "deckhand:workflow:#{sub["id"]}:results"), (0...4).sum { |part| 100 + part }.to_s,
      "the merge after the sub-workflow summed what its steps returned"
    counts = Deckhand::API.new.workflows.counts
    assert_equal [4, 3, 1], [counts["pushed"], counts["ended"]["succeeded"], counts["ended"]["cancelled"]]
    assert_equal 3, run_example("workflows-counts"), "the example reads the same counts"
    results = redis.call("HVALS", "deckhand:workflow:#{status["id"]}:results")
    assert_includes results, (0...8).sum { |part| 100 + part }.to_s, "the merge summed its parts' results"
    assert_equal 2, results.count((0...8).sum { |part| 100 + part }.to_s), "and the notification read it"
  end

  def test_a_running_step_adds_a_sub_workflow_per_file
    run_example("workflows-jobs")
    # The server's config builds the sub-workflows (Deckhand::Workflow.new's default), as in an application.
    config = Deckhand::Workflow.install(Deckhand.config = new_config(concurrency: 4))
    status = with_server(config) { run_example("workflows-sub-grow") }
    assert_equal %w[succeeded 9 9], status.values_at("state", "total", "succeeded")
    steps = Deckhand::Workflow.steps(status["id"]).values
    assert_equal %w[s s], steps.select { |step| step["on"] == "g" }.map { |step| step["state"] }, "one sub-workflow per file, each succeeded"
    assert_includes redis.call("HVALS", "deckhand:workflow:#{status["id"]}:results"), "2", "the notification read the split's result"
  end

  def test_a_child_batch_inside_its_parents_block
    DocsSandbox.const_set(:ChildCallbacks, Class.new)
    DocsSandbox.const_set(:ReportJob, Class.new { include Deckhand::Job })
    parent = Deckhand::Batch.new
    DocsSandbox.define_singleton_method(:parent) { parent }
    run_example("batches-import-job", "batches-child")
    jobs = queued("default")
    assert_equal [[1, 1000], []], jobs.sort_by { |j| j["class"] }.map { |j| j["args"] }
    child_bid = jobs.find { |j| j["class"].end_with?("ReportJob") }["bid"]
    refute_equal parent.bid, child_bid
    assert_equal parent.bid, Deckhand::Batch::Status.new(child_bid).parent_bid
    assert_equal [child_bid], Deckhand::Batch::Status.new(parent.bid).child_bids
    assert_equal ["success"], Deckhand::Batch::Status.new(child_bid).callbacks.map { |c| c["event"] }
  end

  # The real SDK, its spans kept in memory: the example's one line makes every push a span.
  # The SDK is configured once a process (another test file may have done it, and
  # configuring it again would take that file's spans away): this test adds its
  # own exporter to the provider there is.
  def test_tracing_installs_on_the_configuration
    require "opentelemetry/sdk"
    exporter = OpenTelemetry::SDK::Trace::Export::InMemorySpanExporter.new
    unless OpenTelemetry.tracer_provider.is_a?(OpenTelemetry::SDK::Trace::TracerProvider)
      OpenTelemetry::SDK.configure { |c| c.logger = Logger.new(File::NULL) }
    end
    OpenTelemetry.tracer_provider.add_span_processor(OpenTelemetry::SDK::Trace::Export::SimpleSpanProcessor.new(exporter))
    run_example("operations-tracing")
    Deckhand::Client.push("class" => "ReportJob", "args" => [1], "queue" => "reports")
    assert_equal ["reports publish"], exporter.finished_spans.map(&:name)
    assert_match(/\A00-\h{32}-\h{16}-01\z/, queued("reports").first["traceparent"])
  end

  private

  # A Rack app built from a config.ru example.
  def rack_app(name)
    block = Deckhand::DocExamples.fetch(name)
    Rack::Builder.new { instance_eval(block.code, block.path, block.line) }.to_app
  end

  def basic(user, password) = "Basic #{Base64.strict_encode64("#{user}:#{password}")}"

  # The application classes the examples mention, doing just enough.
  # Runs the block with pushes going through a proxy that cuts the
  # connection before the `nth` command `choose` picks reaches Redis.
  def with_cut_at(nth, choose)
    proxy = Deckhand::CutReplyProxy.start(port: Deckhand::RedisHarness.server.port)
    config = new_config(redis: {url: proxy.url, timeout: 2})
    Deckhand::Batch.install(config)
    Deckhand.config = config
    seen = 0
    proxy.cut_request_at { |command| choose.call(command) && (seen += 1) == nth }
    yield proxy
  ensure
    proxy&.stop
  end

  def stand_ins
    users = Class.new do
      def self.ids = [1, 2, 3]

      def self.find(id) = id
    end
    DocsSandbox.const_set(:User, users)
    DocsSandbox.const_set(:Customer, Class.new { def self.ids = (1..2500).to_a })
    DocsSandbox.const_set(:Row, Class.new { def self.pending_ids = (1..2500).to_a })
    DocsSandbox.const_set(:MyTiming, Class.new { def call(_job, _payload, _queue) = yield })
    DocsSandbox.const_set(:ImportTenant, Class.new { def call(_job, _payload, _queue) = yield })
    DocsSandbox.const_set(:Alerts, Module.new)
    DocsSandbox.const_set(:Stripe, Module.new)
    DocsSandbox::Stripe.const_set(:Charge, counter)
    DocsSandbox.const_set(:ShopifyAPI, counter)
    DocsSandbox.const_set(:ORDERS_QUERY, "{ orders { id } }")
    DocsSandbox.const_set(:US_STORE, Deckhand::RedisHarness.store)
    %i[ReminderJob ExportJob].each { |name| DocsSandbox.const_set(name, Class.new { include Deckhand::Job }) }
    DocsSandbox.define_singleton_method(:invoice) { Struct.new(:id).new(42) }
    DocsSandbox.define_singleton_method(:ids) { [1, 2] }
    DocsSandbox.const_set(:Rails, Module.new)
    logger = Class.new { def lines = @lines ||= [] }.new
    logger.define_singleton_method(:info) { |line| lines << line }
    DocsSandbox::Rails.define_singleton_method(:logger) { logger }
    statsd = Class.new { singleton_class.attr_accessor :flushes }
    statsd.flushes = 0
    statsd.define_singleton_method(:flush) { self.flushes += 1 }
    DocsSandbox.const_set(:StatsD, statsd)
  end

  # A class whose every call (create, query) is counted and costs 40 points.
  def counter
    Class.new do
      singleton_class.attr_accessor :calls
      self.calls = 0
      cost = Struct.new(:cost)

      define_singleton_method(:create) { |**| self.calls += 1 }
      define_singleton_method(:query) do |_|
        self.calls += 1
        cost.new(40)
      end
    end
  end
end
