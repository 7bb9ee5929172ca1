# frozen_string_literal: true

require "test_helper"
require "deckhand/embedded"
require "deckhand/api"

# Periodic jobs in an embedded server: the host process leads, enqueues and
# runs them, and gives the lease up when it stops.
class PeriodicEmbeddedTest < Minitest::Test
  def teardown
    @embedded&.stop
    super
  end

  def test_an_embedded_server_runs_its_periodic_jobs_and_hands_the_lease_back
    @embedded = Deckhand.embed(new_config(concurrency: 2)) do |config|
      config.periodic { |cron| cron.register("* * * * * *", "RecordJob", args: ["tick"], name: "every-second") }
    end
    Deckhand.config = @embedded.config
    @embedded.start
    wait_for(message: "this process to lead") { Deckhand.leader? }
    wait_for(message: "two ticks to run") { Deckhand::TestJobs.runs.count { |_, args| args == ["tick"] } >= 2 }
    assert_equal @embedded.identity, Deckhand::API.new(@embedded.config).periodic.leader
    @embedded.stop
    refute Deckhand.leader?
    assert_nil redis.call("GET", "deckhand:periodic:leader"), "the lease outlived a graceful stop"
  end

  def test_no_periodic_thread_without_entries
    @embedded = Deckhand.embed(new_config(concurrency: 1)).start
    Deckhand.config = @embedded.config
    wait_for(message: "the server's threads") { Thread.list.any? { |t| t.name == "deckhand-scheduler" } }
    refute Thread.list.any? { |t| t.name == "deckhand-periodic" }
  end
end
