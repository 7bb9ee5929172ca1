# frozen_string_literal: true

require "test_helper"
require "socket"
require_relative "compat_helper"

# Sidekiq's ProcessSet and WorkSet see a running Deckhand server, and Sidekiq's
# remote controls (quiet!, stop!, dump_threads) reach it.
class SidekiqApiProcessTest < Minitest::Test
  include Deckhand::CompatTest

  def test_process_set_and_work_set_show_a_running_deckhand_server
    config = fast_config(concurrency: 3, queues: [QUEUE, "low"], tag: "compat-app", labels: ["blue"])
    with_server(config) do |launcher|
      process = wait_for(message: "the process record") { find_process(launcher) }
      assert_equal Socket.gethostname, process["hostname"]
      assert_equal ::Process.pid, process["pid"]
      assert_equal 3, process["concurrency"]
      assert_equal [QUEUE, "low"], process.queues
      assert_equal "compat-app", process.tag
      assert_equal ["blue"], process.labels
      assert_equal 0, process["busy"]
      refute process.stopping?
      refute process.embedded?
      assert_in_delta Time.now.to_f, process["beat"], 60
      assert_operator process["rss"], :>, 0
      assert_equal 3, Sidekiq::ProcessSet.new.total_concurrency
      # Sidekiq 8.1.2+ reads the concurrency from its own field of the record, 8.0.9+ the capsules.
      assert_equal "3", redis.call("HGET", launcher.identity, "concurrency")
      assert_equal({"concurrency" => 3, "mode" => "strict", "weights" => {QUEUE => 0, "low" => 0}},
        process["capsules"]["default"].slice("concurrency", "mode", "weights"))

      jid = CompatGateJob.perform_async("held")
      work = wait_for(message: "the job in the WorkSet") { Sidekiq::WorkSet.new.find_work_by_jid(jid) }
      assert_equal launcher.identity, work.process_id
      assert_equal QUEUE, work.queue
      assert_equal "CompatGateJob", work.job.klass
      assert_equal ["held"], work.job.args
      assert_in_delta Time.now.to_f, work.run_at.to_f, 60
      assert_equal 1, Sidekiq::WorkSet.new.size
      assert_equal 1, find_process(launcher)["busy"]

      Deckhand::CompatGate.open
      wait_for(message: "an empty WorkSet") { Sidekiq::WorkSet.new.none? && Sidekiq::WorkSet.new.size.zero? }
    end
    assert_equal 0, Sidekiq::ProcessSet.new.size, "a clean stop removes the process record"
  end

  def test_sidekiq_remote_signals_reach_the_deckhand_process
    with_server(fast_config) do |launcher|
      process = wait_for(message: "the process record") { find_process(launcher) }
      process.quiet!
      wait_for(message: "TSTP") { signals.include?("TSTP") }
      launcher.quiet # what the CLI does on TSTP
      wait_for(message: "the process to show quiet") { find_process(launcher).stopping? }

      process.dump_threads
      wait_for(message: "TTIN") { signals.include?("TTIN") }
      process.stop!
      wait_for(message: "TERM") { signals.include?("TERM") }
    end
    assert_equal %w[TSTP TTIN TERM], signals
  end

  private

  def find_process(launcher) = Sidekiq::ProcessSet.new.find { |process| process.identity == launcher.identity }

  def signals = @signals_received || []
end
