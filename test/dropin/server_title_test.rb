# frozen_string_literal: true

require_relative "dropin_helper"
require_relative "../support/cli_process"
require "deckhand/sidekiq/version"

# A `deckhand` server in drop-in mode names its process as Sidekiq does
# (Sidekiq::Launcher::PROCTITLES, a plugin's proc included) and fires
# Sidekiq's :heartbeat and :beat events after :startup.
class DropInServerTitleTest < Minitest::Test
  include Deckhand::DropInHelpers

  APP = File.expand_path("title_app", __dir__)
  # Sidekiq::VERSION in the child's drop-in mode, which runs on this Ruby.
  DROP_IN_VERSION = Deckhand::DropIn::Version.choose.sidekiq_version

  def teardown
    @cli&.kill
    super
  end

  def title(pid) = `ps -o args= -p #{Integer(pid)}`.strip

  def events = redis.call("LRANGE", "title:events", 0, -1)

  def test_the_process_title_and_the_heartbeat_events_as_in_sidekiq
    @cli = Deckhand::CliProcess.start("-r", "./app.rb", "-c", "3", env: dropin_env, dir: APP)
    @cli.identity
    wait_for(message: "two beats") { events.count("beat") >= 2 }
    assert_equal %w[startup heartbeat beat], events.first(3), @cli.output
    assert_equal 1, events.count("heartbeat")
    wait_for(message: "Sidekiq's title") { title(@cli.pid) == "sidekiq #{DROP_IN_VERSION} shop [0 of 3 busy] rev-42" }

    Deckhand::Client.new.push("class" => "TitleHoldJob", "args" => [])
    wait_for(message: "the running job in the title") { title(@cli.pid).include?("[1 of 3 busy]") }
    redis.call("RPUSH", "title:release", "go")
    wait_for(message: "the job's end in the title") { title(@cli.pid).include?("[0 of 3 busy]") }

    @cli.signal("TERM")
    assert_equal 0, @cli.wait_exit.exitstatus, @cli.output
    assert_includes events, "quiet"
    assert_empty @cli.own_warnings
  end
end
