# frozen_string_literal: true

require_relative "e2e_helper"

# What the server says at boot when jobs would otherwise wait with no hint.
class BootWarningsTest < Minitest::Test
  include Deckhand::E2EHelpers

  def test_warns_of_a_queue_with_jobs_that_no_process_works
    2.times { E2E::CountJob.set(queue: "mailers").perform_async(1) }
    cli = boot("-q", "default")
    line = cli.wait_for_log(/WARN.*queue mailers holds .*$/)[0]
    assert_includes line, "holds 2 jobs that no running process works (this one works default)"
    assert_includes line, "deckhand -q mailers"
    refute_match(/queue default holds/, cli.output)
  end

  def test_says_nothing_of_queues_it_works
    E2E::CountJob.perform_async(1)
    cli = boot("-q", "default")
    wait_for(message: "the job to run") { counts == {1 => 1} }
    refute_match(/no running process works/, cli.output)
    refute_match(/loaded no application/, cli.output)
  end

  def test_without_an_application_it_says_it_loaded_none
    cli = deckhand(app: nil)
    cli.identity
    assert_match(/WARN.*loaded no application: no -r given and no config\/environment\.rb/, cli.output)
  end
end
