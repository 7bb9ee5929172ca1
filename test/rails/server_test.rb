# frozen_string_literal: true

require_relative "rails_helper"
require "support/cli_process"

# `deckhand -r test/rails/app`: the real command boots the Rails app the way a
# production server would, and runs its Active Job and Deckhand jobs.
class RailsServerTest < Minitest::Test
  include Deckhand::RailsTestApp

  def teardown
    puts @cli.output unless passed?
    @cli&.kill
    super
  end

  def test_the_cli_boots_the_rails_app_and_runs_its_jobs
    @cli = Deckhand::CliProcess.start("-r", Deckhand::RailsTestApp::DIR, "-q", "mailers", "-q", "default")
    @cli.identity
    RailsJobs::GreetJob.perform_later("from the web")
    RailsJobs::NativeJob.perform_async("native")
    entries = wait_for(message: "both jobs in the server") do
      list = redis.call("LRANGE", "rails:log", 0, -1).map { |raw| JSON.parse(raw) }
      list if list.size == 2
    end
    greet = entries.assoc("greet")
    assert_equal ["greet", "from the web", {}, 1], greet.first(4)
    assert_equal true, greet.last, "the job ran outside the Rails executor"
    assert_includes entries, ["native", "native", true]
    # Rails' own log lines reach the server's output (Rails logs to a file here).
    @cli.wait_for_log(/INFO: Performed RailsJobs::GreetJob \(Job ID: \S+\) from Deckhand\(mailers\)/)
    @cli.signal("TERM")
    assert_equal 0, @cli.wait_exit(timeout: 15).exitstatus
    assert_empty @cli.own_warnings
  end
end
