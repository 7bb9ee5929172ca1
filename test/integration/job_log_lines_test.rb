# frozen_string_literal: true

require "test_helper"

# A server's done and fail line for each job, and job_log_lines = false for
# an application (or drop-in mode's custom job logger) that logs each job
# itself: the jobs run and fail the same, without those lines.
class JobLogLinesTest < Minitest::Test
  def run_one_success_and_one_failure(config)
    log = StringIO.new
    config.logger = Logger.new(log)
    RecordJob.perform_async(1)
    FailJob.perform_async(2)
    with_server(config) do
      wait_for(message: "the success and the failure") { Deckhand::TestJobs.runs.size >= 1 && redis.call("ZCARD", "retry") == 1 }
    end
    log.string
  end

  def test_a_server_logs_a_line_for_each_job_by_default
    config = new_config(heartbeat_interval: 0.1)
    assert config.job_log_lines
    log = run_one_success_and_one_failure(config)
    assert_match(/INFO.*done \d/, log)
    assert_match(/WARN.*fail \d+(\.\d+)?ms: ArgumentError/, log)
  end

  def test_job_log_lines_false_leaves_them_out
    config = new_config(heartbeat_interval: 0.1)
    config.job_log_lines = false
    log = run_one_success_and_one_failure(config)
    refute_match(/done \d/, log)
    refute_match(/fail \d/, log)
    assert_includes log, "started as", "the server's own lines stay"
  end

  def test_it_takes_true_or_false_and_is_frozen_at_boot
    config = new_config
    assert_includes assert_raises(Deckhand::ConfigError) { config.job_log_lines = "no" }.message, "job_log_lines must be true or false"
    config.freeze!
    assert_raises(Deckhand::ConfigError) { config.job_log_lines = false }
  end
end
