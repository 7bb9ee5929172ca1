# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/sidekiq_versions_test.rb starts it
# once with DECKHAND_SIDEKIQ=8 and once with 7): each behaviour where
# Sidekiq 8.1 and 7.3 differ, as the version drop-in mode stands in for has
# it, on real Redis.
require "minitest/autorun"
require "minitest/mock"
require "active_job"
require "sidekiq"
require "sidekiq/api"
require "sidekiq/web"
require "sidekiq/job_logger"
require "sidekiq/job_retry"
require "sidekiq/metrics/tracking"
require "sidekiq/metrics/query"
require "sidekiq/metrics/shared"
require "sidekiq/middleware/current_attributes"
require "sidekiq/redis_connection"
require "sidekiq/testing"
require "rack/mock"
require "stringio"
require "logger"

class VersionsStampJob
  include Sidekiq::Job

  def perform(*) = nil
end

class VersionsInlineJob
  include Sidekiq::Job

  def perform(value) = Sidekiq.redis { |conn| conn.rpush("versions:inline", "#{value.class} #{value}") }
end

class VersionsGreetingJob < ActiveJob::Base
  def perform(name) = name
end

class VersionsDiscardJob
  include Sidekiq::Job

  sidekiq_options retry: 0
  sidekiq_retries_exhausted { |_job, _error| :discard }
end

class VersionsRetryInDiscardJob
  include Sidekiq::Job

  sidekiq_options retry: 3
  sidekiq_retry_in { |_count, _error| :discard }
end

class VersionsIterableJob
  include Sidekiq::IterableJob

  CALLS = []

  def build_enumerator(cursor:) = array_enumerator([1, 2, 3], cursor: cursor)

  def each_iteration(_item) = nil

  %i[on_start on_resume on_cancel on_stop on_complete].each { |name| define_method(name) { CALLS << name } }
end

class VersionsCurrent < ActiveSupport::CurrentAttributes
  attribute :user_id, :locale
end

class VersionsHelpers
  include Sidekiq::WebHelpers

  def env = {"SCRIPT_NAME" => "", :csp_nonce => "n0nce"}
end

class SidekiqVersionsTest < Minitest::Test
  def setup
    Sidekiq::Testing.disable!
    Deckhand.config = Deckhand::Config.new(redis: {url: ENV.fetch("REDIS_URL")})
    Deckhand.config.logger = Logger.new(File::NULL)
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
  end

  # What the version drop-in mode stands in for does.
  def expected(seven:, eight:) = eight? ? eight : seven

  def eight? = Sidekiq::VERSION.start_with?("8.")

  def test_sidekiq_version_is_the_one_asked_for
    assert_equal expected(seven: "7.3.0", eight: "8.1.7"), Sidekiq::VERSION
    assert_equal ENV.fetch("DECKHAND_SIDEKIQ"), Sidekiq::VERSION[0]
    assert_equal Gem::Version.new(Sidekiq::VERSION), Sidekiq.gem_version
  end

  def test_timestamps_are_the_versions_and_sidekiq_8_writes_seconds_while_a_sidekiq_7_is_registered
    assert_equal expected(seven: :float, eight: :auto), Deckhand.config.timestamps_setting
    VersionsStampJob.perform_async(1)
    job = Sidekiq::Queue.new.first
    assert_kind_of expected(seven: Float, eight: Integer), job["created_at"]
    assert_kind_of expected(seven: Float, eight: Integer), job["enqueued_at"]
    assert_in_delta Time.now.to_f, job.enqueued_at.to_f, 5

    now = Time.now.to_f
    Sidekiq.redis do |conn|
      conn.sadd("processes", ["old-host:1:ab"])
      conn.hset("old-host:1:ab", "info", JSON.generate("hostname" => "old-host", "pid" => 1, "version" => "7.3.10",
        "started_at" => now, "queues" => ["default"], "concurrency" => 5), "beat", now.to_s, "busy", "0", "quiet", "false")
    end
    Deckhand.config.fleet_versions.check_every = 0
    VersionsStampJob.perform_async(2)
    assert_kind_of Float, Sidekiq::Queue.new.to_a.find { |entry| entry.args == [2] }["created_at"], "Sidekiq 7 reads Float seconds only"
  end

  def test_a_push_is_dated_by_time_now_in_7_and_by_the_system_clock_in_8
    an_hour_ago = Time.now - 3600
    Time.stub(:now, an_hour_ago) { VersionsStampJob.perform_async(3) }
    created = Deckhand::Payload.to_time(Sidekiq::Queue.new.first["created_at"]).to_f
    assert_in_delta expected(seven: an_hour_ago.to_f, eight: Process.clock_gettime(Process::CLOCK_REALTIME)), created, 60
  end

  def test_the_active_job_wrapper_written_without_a_sidekiq_process_is_the_versions
    ActiveJob::Base.queue_adapter = :sidekiq
    ActiveJob::Base.logger = Logger.new(File::NULL)
    VersionsGreetingJob.perform_later("ada")
    job = Sidekiq::Queue.new.first
    assert_equal [expected(seven: "ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper", eight: "Sidekiq::ActiveJob::Wrapper"), "VersionsGreetingJob"],
      [job["class"], job["wrapped"]]
  end

  def test_perform_inline_checks_its_arguments_in_sidekiq_8_only
    if eight?
      error = assert_raises(ArgumentError) { VersionsInlineJob.perform_inline(:sym) }
      assert_match(/but :sym is a Symbol/, error.message)
      assert_empty Sidekiq.redis { |conn| conn.lrange("versions:inline", 0, -1) }
    else
      assert VersionsInlineJob.perform_inline(:sym)
      assert_equal ["String sym"], Sidekiq.redis { |conn| conn.lrange("versions:inline", 0, -1) }
    end
  end

  def test_the_pretty_log_line_puts_the_level_where_the_version_does
    out = StringIO.new
    logger = Sidekiq::Logger.new(out)
    logger.formatter = Sidekiq::Logger::Formatters::Pretty.new
    Sidekiq::Context.with(class: "HardJob") { logger.info("hello") }
    if eight?
      assert_match(/\A\e\[1;34mINFO \e\[0m \d{4}-\d\d-\d\dT[\d:.]+Z pid=#{Process.pid} tid=\S+ class=HardJob: hello\n\z/, out.string)
    else
      assert_match(/\A\d{4}-\d\d-\d\dT[\d:.]+Z pid=#{Process.pid} tid=\S+ class=HardJob INFO: hello\n\z/, out.string)
    end
  end

  def test_a_jobs_log_level_reaches_a_plain_logger_in_sidekiq_8_only
    config = Sidekiq.default_configuration
    config.logger = Logger.new(StringIO.new, level: :info)
    job_logger = Sidekiq::JobLogger.new(config)
    seen = nil
    job_logger.prepare({"class" => "HardJob", "jid" => "j1", "log_level" => "debug", "trace" => "t1"}) { seen = config.logger.debug? }
    assert_equal eight?, seen
    refute config.logger.debug?
    config[:logged_job_attributes] << "trace"
    job_logger.prepare({"class" => "HardJob", "jid" => "j1", "trace" => "t1"}) { seen = Sidekiq::Context.current[:trace] }
    assert_equal "t1", seen
  end

  def test_sidekiq_connections_name_the_sidekiq_8_version_to_redis
    pool = Sidekiq::RedisConnection.create(url: ENV.fetch("REDIS_URL"))
    driver_info = pool.with { |conn| conn.config.driver_info }
    eight? ? assert_equal("sidekiq_v8.1.7", driver_info) : assert_nil(driver_info)
    assert_equal "mine", Sidekiq::RedisConnection.create(url: ENV.fetch("REDIS_URL"), driver_info: "mine").with { |conn| conn.config.driver_info }
  end

  def test_a_job_discarded_by_its_class_reaches_the_death_handlers_in_sidekiq_8_only
    deaths = []
    config = Sidekiq.default_configuration
    config.death_handlers << ->(job, error) { deaths << [job["class"], job.key?("discarded_at"), error.message] }
    assert_equal eight?, config.config.death_handlers_on_discard
    retrier = Sidekiq::JobRetry.new(config)
    [VersionsDiscardJob, VersionsRetryInDiscardJob].each do |klass|
      payload = JSON.generate("class" => klass.name, "args" => [], "queue" => "default", "jid" => "jid-#{klass.name}", "retry" => klass.get_sidekiq_options["retry"])
      assert_raises(Sidekiq::JobRetry::Handled) { retrier.local(klass.new, payload, "default") { raise "boom" } }
    end
    assert_equal 0, Sidekiq::DeadSet.new.size
    assert_equal 0, Sidekiq::RetrySet.new.size
    expected_deaths = [["VersionsDiscardJob", true, "boom"], ["VersionsRetryInDiscardJob", true, "boom"]]
    assert_equal expected(seven: [], eight: expected_deaths), deaths
  end

  def test_head_on_the_dashboard_answers_as_the_version_does
    VersionsStampJob.perform_async(1)
    response = Rack::MockRequest.new(Sidekiq::Web).request("HEAD", "/")
    assert_equal 200, response.status
    assert_equal expected(seven: "1", eight: ""), response.body
  end

  def test_style_tag_returns_the_tag_in_7_and_the_heads_tags_in_8
    link = %(<link type="text/css" media="screen" rel="stylesheet" nonce="n0nce" href="/ext.css" />)
    helpers = VersionsHelpers.new
    assert_equal expected(seven: link, eight: [link]), helpers.style_tag("ext.css")
    assert_equal link, helpers.display_custom_head.to_s if eight?
  end

  def test_current_attributes_travel_as_the_version_writes_them_and_either_is_read
    save = Sidekiq::CurrentAttributes::Save.new({"cattr" => "VersionsCurrent"})
    job = {}
    VersionsCurrent.set(user_id: 42, locale: "fr") { save.call(nil, job, nil, nil) {} }
    if eight?
      assert_equal({user_id: 42, locale: "fr"}, ActiveJob::Arguments.deserialize(job["cattr"]).to_h)
    else
      assert_equal({user_id: 42, locale: "fr"}, job["cattr"])
    end
    load = Sidekiq::CurrentAttributes::Load.new({"cattr" => "VersionsCurrent"})
    as_7 = {"cattr" => {"user_id" => 7}}
    as_8 = {"cattr" => ActiveJob::Arguments.serialize({user_id: 8})}
    seen = [as_7, as_8].map { |payload| load.call(nil, payload, "default") { VersionsCurrent.user_id } }
    assert_equal [7, 8], seen
  end

  def test_a_cancelled_iterable_job_runs_the_versions_callbacks_and_fake_mode_keeps_its_progress_in_redis
    VersionsIterableJob::CALLS.clear
    Sidekiq::Testing.fake! do
      jid = VersionsIterableJob.perform_async
      job = VersionsIterableJob.new
      job.jid = jid
      refute job.cancelled?
      assert job.cancel!
      assert job.cancelled?
      refute_nil Sidekiq.redis { |conn| conn.hget("it-#{jid}", "cancelled") }, "in Redis, where Sidekiq's testing keeps it"
      VersionsIterableJob.drain
      assert_equal 0, Sidekiq.redis { |conn| conn.exists("it-#{jid}") }, "a job that ends forgets its progress"
    end
    assert_equal expected(seven: %i[on_start on_stop on_complete], eight: %i[on_start on_cancel on_stop on_complete]), VersionsIterableJob::CALLS
  end

  def test_metrics_are_kept_and_queried_as_the_version_keeps_them
    now = Time.utc(2026, 11, 29, 10, 3, 30)
    tracker = Sidekiq::Metrics::ExecutionTracker.new(Sidekiq.default_configuration)
    tracker.track("default", "ReportJob") { nil }
    assert_equal expected(seven: 2, eight: 4), tracker.flush(now), "p and ms, in one hash (7) or two (8)"
    result = Sidekiq::Metrics::Query.new(now: now).top_jobs
    bucket = expected(seven: "10:03", eight: "2026-11-29T10:03:00Z")
    assert_equal 1, result.job_results["ReportJob"].series["p"][bucket]
    assert_equal eight?, result.respond_to?(:granularity)

    histogram = Sidekiq::Metrics::Histogram.new("ReportJob")
    histogram.record_time(50)
    key = Sidekiq.redis { |conn| histogram.persist(conn, now) }
    assert_equal expected(seven: "ReportJob-29-10:3", eight: "h|ReportJob-29-10:3"), key
    counts = Sidekiq.redis { |conn| Sidekiq::Metrics::Histogram.new("ReportJob").fetch(conn, now) }
    assert_equal 1, counts[3], "50 ms: the 45 to 65 ms bucket, beside the tracked run Deckhand's server layout wrote"
  end

  # Each failure the tracker times counts once under its error class, where
  # a server's heartbeat counts them (the dashboard's failures by error
  # class, by the minute and by the hour); Sidekiq's own keys hold what
  # they held, and none of them names an error class.
  def test_the_trackers_failures_are_counted_by_error_class_and_sidekiqs_keys_hold_no_more
    now = Time.now.utc
    tracker = Sidekiq::Metrics::ExecutionTracker.new(Sidekiq.default_configuration)
    2.times { assert_raises(IOError) { tracker.track("default", "ReportJob") { raise IOError, "disk full" } } }
    assert_raises(KeyError) { tracker.track("default", "ReportJob") { raise KeyError, "no :id" } }
    assert_raises(Sidekiq::JobRetry::Skip) { tracker.track("default", "ReportJob") { raise Sidekiq::JobRetry::Skip } }
    tracker.track("default", "ReportJob") { nil }
    assert_equal expected(seven: 3, eight: 6), tracker.flush(now), "p, f and ms, in one hash (7) or two (8), as before"
    assert_equal [5, 3], Sidekiq::Metrics::Query.new(now: now).top_jobs.job_results["ReportJob"].totals.values_at("p", "f")
    api = Deckhand::API.new(Deckhand.config)
    %w[1h 24h].each do |period|
      failures = api.failures_by_error(period: period).series.to_h { |error, counts| [error, counts.sum] }
      assert_equal({"IOError" => 2, "KeyError" => 1}, failures, "#{period}: once per failure; an interrupted iterable job is none")
    end
    assert_equal 0, tracker.flush(now), "nothing since"
    assert_equal 3, api.failures_by_error.series.sum { |_, counts| counts.sum }, "a second flush adds none"
    holding = Sidekiq.redis { |conn| conn.call("KEYS", "*").select { |key| conn.call("TYPE", key) == "hash" && conn.call("HKEYS", key).any? { |field| field.include?("IOError") } } }
    refute_empty holding
    assert holding.all? { |key| key.start_with?("deckhand:metrics:e:") }, "only Deckhand's failures by error class name one: #{holding}"
  end
end
