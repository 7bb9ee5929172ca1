# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/job_logger_config_test.rb starts it):
# Sidekiq's config[:job_logger] and config[:skip_default_job_logging] on a
# Deckhand server. A custom job logger class runs around each job, outside
# every other server middleware, and its lines stand in for the server's
# own done and fail lines; anything but a job logger class is refused.
require "minitest/autorun"
require "sidekiq"
require "sidekiq/launcher"
require "sidekiq/job_logger"

class AuditJobLogger < Sidekiq::JobLogger
  LINES = Queue.new

  def call(item, queue)
    LINES << "start #{item["class"]} #{queue} #{Sidekiq::Context.current[:jid] == item["jid"]}"
    yield
    LINES << "done #{item["jid"]}"
  rescue => e
    LINES << "fail #{e.message}"
    raise
  end
end

class InnerMiddleware
  def call(_job, _payload, _queue)
    AuditJobLogger::LINES << "middleware"
    yield
  end
end

class LoggedJob
  include Sidekiq::Job

  def perform(fail) = fail ? raise("boom") : AuditJobLogger::LINES << "perform"
end

class JobLoggerConfigInsideTest < Minitest::Test
  def setup
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
    Deckhand.config = Deckhand::Config.new(redis: {url: ENV.fetch("REDIS_URL")}, heartbeat_interval: 0.1)
    @config = Sidekiq.default_configuration
    @log = StringIO.new
    @config.logger = Logger.new(@log)
    AuditJobLogger::LINES.clear
  end

  def lines
    all = []
    all << AuditJobLogger::LINES.pop until AuditJobLogger::LINES.empty?
    all
  end

  def run_jobs(count)
    launcher = Sidekiq::Launcher.new(@config)
    launcher.run
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 20
    sleep 0.02 until Sidekiq::Stats.new.then { |s| s.processed >= count } || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
  ensure
    launcher&.stop
  end

  def test_a_custom_job_logger_runs_around_each_job_in_place_of_the_server_s_lines
    assert_nil @config[:job_logger]
    @config[:job_logger] = AuditJobLogger
    @config.server_middleware { |chain| chain.prepend(InnerMiddleware) }
    assert_same AuditJobLogger, @config[:job_logger]
    GC.start # the choice outlives a collection before the server boots
    jid = LoggedJob.perform_async(false)
    run_jobs(1)
    assert_equal ["start LoggedJob default true", "middleware", "perform", "done #{jid}"], lines
    refute_match(/done \d/, @log.string, "the server's own done line is left out")
  end

  def test_a_failure_goes_through_the_custom_logger_and_is_retried
    @config[:job_logger] = AuditJobLogger
    LoggedJob.perform_async(true)
    run_jobs(1)
    assert_equal ["start LoggedJob default true", "fail boom"], lines
    assert_equal 1, Sidekiq::RetrySet.new.size
    refute_match(/fail \d/, @log.string)
  end

  def test_skip_default_job_logging_leaves_the_server_s_lines_out
    @config[:skip_default_job_logging] = true
    LoggedJob.perform_async(false)
    run_jobs(1)
    assert_equal ["perform"], lines
    refute_match(/done \d/, @log.string)
  end

  def test_without_either_the_server_logs_its_lines
    LoggedJob.perform_async(false)
    run_jobs(1)
    assert_match(/done \d/, @log.string)
  end

  def test_anything_but_a_job_logger_class_is_refused_where_it_is_set
    error = assert_raises(ArgumentError) { @config[:job_logger] = Logger.new(nil) }
    assert_includes error.message, "config[:job_logger] takes a job logger class: Sidekiq::JobLogger or a subclass"
    assert_raises(ArgumentError) { @config[:job_logger] = Object }
    @config[:job_logger] = AuditJobLogger
    @config[:job_logger] = nil
    assert Deckhand.config.job_log_lines, "back to the server's own lines"
  end

  def test_after_boot_it_cannot_change
    Deckhand.config.freeze!
    assert_raises(Deckhand::ConfigError) { @config[:job_logger] = AuditJobLogger }
  end
end
