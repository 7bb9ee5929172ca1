# frozen_string_literal: true

require_relative "rails_helper"
require "support/cli_process"

# With Rails' reloading on (development), a running `deckhand` runs the code as
# it is now: the job's class is looked up inside the reloader for every job,
# so editing a job file takes effect without a restart.
class RailsReloadingTest < Minitest::Test
  include Deckhand::RailsTestApp

  JOB = <<~RUBY
    class ReloadProbeJob
      include Deckhand::Job

      def perform = RailsJobs.record("probe", "%s")
    end
  RUBY

  def setup
    super
    @app = Dir.mktmpdir("deckhand-reloading")
    FileUtils.cp_r(File.join(Deckhand::RailsTestApp::DIR, "."), @app)
    write_job("v1")
  end

  def teardown
    puts @cli.output unless passed?
    @cli&.kill
    FileUtils.rm_rf(@app)
    super
  end

  def write_job(version)
    path = File.join(@app, "app/jobs/reload_probe_job.rb")
    File.write(path, format(JOB, version))
  end

  def probes
    redis.call("LRANGE", "rails:log", 0, -1).map { |raw| JSON.parse(raw) }.select { |entry| entry.first == "probe" }
  end

  def test_an_edited_job_file_runs_its_new_code_without_a_restart
    @cli = Deckhand::CliProcess.start("-r", @app, "-e", "development",
      env: {"RAILS_TEST_RELOADING" => "1", "RAILS_TEST_DATABASE" => File.join(@app, "dev.sqlite3")})
    @cli.identity
    Deckhand::Client.push("class" => "ReloadProbeJob", "args" => [])
    wait_for(message: "the first version to run") { probes == [%w[probe v1]] }

    write_job("v2")
    Deckhand::Client.push("class" => "ReloadProbeJob", "args" => [])
    wait_for(message: "the edited version to run") { probes == [%w[probe v1], %w[probe v2]] }
    @cli.signal("TERM")
    assert_equal 0, @cli.wait_exit(timeout: 15).exitstatus
  end
end
