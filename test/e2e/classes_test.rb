# frozen_string_literal: true

require_relative "e2e_helper"

# `deckhand classes` against a real server process: a paused class's jobs
# are held while another class in the same queue runs, listed with their
# count, and run once each after `deckhand classes resume`.
class ClassesE2ETest < Minitest::Test
  include Deckhand::E2EHelpers

  FAST = "heartbeat_interval: 0.2\n"

  def classes(*args) = deckhand_run("classes", *args, timeout: 30)

  def test_the_cli_pauses_lists_and_resumes_a_class
    done = classes("pause", E2E::CountJob.name)
    assert_equal 0, done.wait_exit.exitstatus, done.output
    assert_equal "#{E2E::CountJob.name} paused: its jobs wait while the rest of their queues runs\n", done.stdout
    server = boot("-C", config_file(FAST))
    3.times { |n| E2E::CountJob.perform_async(n) }
    E2E::TraceJob.perform_async("other")
    wait_for(message: "the other class ran", timeout: 30) { trace.map { |entry| entry["label"] } == ["other"] }
    wait_for(message: "the paused class held", timeout: 30) { classes.stdout == "#{E2E::CountJob.name} 3 held\n" }
    assert_empty counts, "held, not run"
    done = classes("resume", E2E::CountJob.name)
    assert_equal "#{E2E::CountJob.name} resumed: 3 held jobs back in their queues\n", done.stdout, done.output
    wait_for(message: "each held job ran", timeout: 30) { counts == {0 => 1, 1 => 1, 2 => 1} }
    assert_equal "", classes.stdout
    server.signal("TERM")
    assert_equal 0, server.wait_exit(timeout: 20).exitstatus

    wrong = classes("pause")
    assert_equal 1, wrong.wait_exit.exitstatus
    assert_match(/deckhand classes takes pause or resume and the names of job classes/, wrong.output)
  end
end
