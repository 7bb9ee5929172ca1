# frozen_string_literal: true

require_relative "e2e_helper"

# `deckhand -C config/sidekiq.yml` in an application that keeps its periodic
# jobs in config/deckhand.yml (as the migration guide says to) reads both:
# Sidekiq's file gives the queues, Deckhand's the schedule.
class SidekiqConfigBesideDeckhandYmlTest < Minitest::Test
  include Deckhand::E2EHelpers

  def setup
    super
    @app = Dir.mktmpdir("deckhand-e2e-app")
    FileUtils.mkdir_p(File.join(@app, "config"))
  end

  def teardown
    super
  ensure
    FileUtils.rm_rf(@app)
  end

  def test_both_files_are_read_and_the_periodic_job_runs
    write("config/sidekiq.yml", ":concurrency: 2\n:queues:\n  - [default, 2]\n  - ticks\n")
    write("config/deckhand.yml", <<~YAML)
      concurrency: 5
      periodic:
        jobs:
          every-second: {cron: "* * * * * *", class: E2E::TraceJob, queue: ticks, args: [tick]}
    YAML
    cli = Deckhand::CliProcess.start("-r", Deckhand::E2EHelpers::APP, "-C", "config/sidekiq.yml", dir: @app)
    (@clis ||= []) << cli
    wait_for(timeout: 45, message: "the periodic job of config/deckhand.yml to run") { trace.any? { |entry| entry["label"] == "tick" } }
    cli.wait_for_log(%r{read config/deckhand.yml and config/sidekiq.yml \(-C\)})
    cli.wait_for_log(%r{concurrency is set in config/deckhand.yml \(5\) and in config/sidekiq.yml \(2\): config/sidekiq.yml's wins})
    assert_equal 2, process_info(cli.identity)["concurrency"]
    cli.signal("TERM")
    assert_equal 0, cli.wait_exit(timeout: 15).exitstatus
  end

  def test_another_file_is_read_alone_and_the_unread_deckhand_yml_is_named
    write("config/deckhand.yml", "concurrency: 5\n")
    write("config/other.yml", "concurrency: 3\n")
    cli = Deckhand::CliProcess.start("-r", Deckhand::E2EHelpers::APP, "-C", "config/other.yml", dir: @app)
    (@clis ||= []) << cli
    cli.wait_for_log(%r{config/deckhand.yml is not read: -C config/other.yml replaces it})
    assert_equal 3, process_info(cli.identity)["concurrency"]
    cli.signal("TERM")
    assert_equal 0, cli.wait_exit(timeout: 15).exitstatus
  end

  private

  def write(path, text) = File.write(File.join(@app, path), text)
end
