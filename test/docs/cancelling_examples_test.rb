# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require_relative "doc_examples"

# The cancelling guide's examples (docs/cancelling.md), run as written: a
# scheduled job taken out, and a running job that checks cancelled? stopped
# by a real server.
class CancellingExamplesTest < Minitest::Test
  # Where the examples' classes land; Export stands in for the application's.
  module Sandbox
    module Export
      WRITTEN = Queue.new

      def self.write(id)
        WRITTEN << id
        sleep 0.01
      end
    end
  end

  def teardown
    (Sandbox.constants - [:Export]).each { |name| Sandbox.send(:remove_const, name) }
    super
  end

  def run_example(name)
    block = Deckhand::DocExamples.fetch(name)
    Sandbox.module_eval(block.code, block.path, block.line)
  end

  def test_a_scheduled_job_is_taken_out_and_its_record_read
    assert_equal "#{Sandbox.name}::ReportJob", run_example("cancelling-waiting"), "the record names the class"
    assert_equal 0, redis.call("ZCARD", "schedule")
    jid = redis.call("KEYS", "deckhand:cancelled:*").first.delete_prefix("deckhand:cancelled:")
    assert_equal "schedule", Deckhand::API.new.cancellation(jid).where
  end

  def test_a_running_job_that_checks_stops_at_the_next_heartbeat
    run_example("cancelling-job")
    with_server(new_config(heartbeat_interval: 0.1)) do |launcher|
      assert_equal :cancelling_running, run_example("cancelling-running")
      wait_for(message: "the job stopped and settled") { inflight_keys(launcher.identity).empty? && Deckhand::API.new.running.empty? }
    end
    assert_operator Sandbox::Export::WRITTEN.size, :<, 10_000, "it stopped early"
    assert_equal [0, 0], [redis.call("ZCARD", "retry"), redis.call("LLEN", "queue:default")]
    assert_equal 1, redis.call("KEYS", "deckhand:cancelled:*").size
  end
end
