# frozen_string_literal: true

require_relative "dropin_helper"

# Sidekiq::CLI in drop-in mode: the object (inside/test_sidekiq_cli.rb), and
# a bin/sidekiq-style script built on it running Deckhand's server.
class DropInSidekiqCliTest < Minitest::Test
  include Deckhand::DropInHelpers
  include Deckhand::TestHelpers

  APP = File.expand_path("cli_app", __dir__)

  def test_the_cli_object_reads_sidekiqs_flags_and_config_file
    assert_dropin_tests_pass(File.expand_path("inside/test_sidekiq_cli.rb", __dir__), chdir: APP)
  end

  def test_a_script_on_sidekiq_cli_runs_jobs_until_term
    log = File.join(Dir.mktmpdir("deckhand-sidekiq-cli"), "out.log")
    pid = ::Process.spawn(dropin_env, RbConfig.ruby, "-w", "run.rb", "-r", "./jobs.rb", "-c", "2", "-q", "cli_run",
      "-C", File::NULL, chdir: APP, in: File::NULL, out: log, err: [:child, :out])
    Deckhand::Client.new.push("class" => "CliRunJob", "args" => [41], "queue" => "cli_run")
    wait_for(timeout: 60, message: "the job, run by the script's server") { redis.call("LRANGE", "cli:done", 0, -1).any? }
    assert_equal ["41:true"], redis.call("LRANGE", "cli:done", 0, -1), "run in a server process (Sidekiq.server?)"
    ::Process.kill("TERM", pid)
    _, status = ::Process.wait2(pid)
    pid = nil
    assert_equal 0, status.exitstatus, File.read(log)
    refute_match(/warning:/, File.read(log).lines.grep(OWN_CODE).join)
  ensure
    if pid
      ::Process.kill("KILL", pid)
      ::Process.wait(pid)
    end
    FileUtils.rm_rf(File.dirname(log)) if log
  end
end
