# frozen_string_literal: true

require_relative "e2e_helper"

# A fiber capsule configured in deckhand.yml, on the real CLI: its jobs run
# at once, and TERM interrupts those that outlive the timeout and hands them
# back.
class FibersTest < Minitest::Test
  include Deckhand::E2EHelpers

  def setup
    super
    skip_on_jruby("fiber capsules refuse to start there (test/unit/server/fibers/fiber_config_test.rb)")
  end

  def started = redis.call("LRANGE", "e2e:started", 0, -1)

  def test_term_hands_back_the_jobs_running_in_fibers
    yml = config_file("capsules:\n  slow: {concurrency: 100, queues: [slow], fibers: true}\n")
    cli = boot("-t", "1", "-c", "1", "-C", yml)
    identity = cli.identity
    jids = E2E::SlowJob.perform_bulk(Array.new(50) { [30] })
    wait_for(message: "50 jobs running at once") { started.size == 50 }
    cli.signal("TERM")
    assert_equal 0, cli.wait_exit(timeout: 20).exitstatus
    assert_equal jids.sort, jobs_in("slow").map { |job| job["jid"] }.sort
    assert_empty redis.call("LRANGE", "e2e:finished", 0, -1)
    assert_empty inflight_keys(identity)
    assert_includes cli.output, "slow(100 fibers: slow)"
    assert_includes cli.output, "50 jobs still running after 1.0s; interrupting them and handing them back"
  end
end
