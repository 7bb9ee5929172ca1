# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

class ProcessSetTest < Minitest::Test
  def api = Deckhand::API.new(Deckhand.config)

  def test_lists_a_running_server_with_its_threads_memory_and_jobs
    Deckhand.config = new_config(concurrency: 3, queues: ["default", "slow"], heartbeat_interval: 0.1)
    with_server do |launcher|
      SleepJob.perform_async(1)
      wait_for(message: "the job in the work record") { api.running.any? }
      process = api.processes.find(launcher.identity)
      assert_equal 3, process.concurrency
      assert_equal %w[default slow], process.queues
      assert_equal ::Process.pid, process.pid
      assert_operator process.rss_kb, :>, 1000
      refute process.quiet?
      refute process.stale?
      assert_equal 1, wait_for { api.processes.find(launcher.identity).busy.then { |b| b if b.positive? } }
      running = api.running.first
      assert_equal ["SleepJob", "default", launcher.identity], [running.job.display_class, running.queue, running.identity]
      assert_in_delta Time.now.to_f, running.run_at.to_f, 5
    end
  end

  def test_quiet_and_stop_reach_the_process_through_its_signal_list
    Deckhand.config = new_config(heartbeat_interval: 0.1)
    with_server do |launcher|
      wait_for { api.processes.find(launcher.identity) }.quiet!
      wait_for(message: "TSTP delivered") { @signals_received&.include?("TSTP") }
      api.processes.find(launcher.identity).stop!
      wait_for(message: "TERM delivered") { @signals_received&.include?("TERM") }
    end
  end

  def test_drops_processes_whose_record_expired
    redis.call("SADD", "processes", "gone:1:abc", "alive:2:def")
    redis.call("HSET", "alive:2:def", "info", JSON.generate("hostname" => "alive", "concurrency" => 5), "busy", "2", "beat", Time.now.to_f.to_s)
    assert_equal ["alive:2:def"], api.processes.map(&:identity)
    assert_equal ["alive:2:def"], redis.call("SMEMBERS", "processes")
  end

  def test_reads_a_work_record_whose_payload_is_an_object
    redis.call("SADD", "processes", "h:1:a")
    redis.call("HSET", "h:1:a", "info", "{}", "busy", "1", "beat", Time.now.to_f.to_s)
    redis.call("HSET", "h:1:a:work", "t1", JSON.generate("queue" => "q", "payload" => {"class" => "Obj", "jid" => "j"}, "run_at" => 1))
    running = api.running
    assert_equal [["Obj", "q"]], running.map { |r| [r.job.display_class, r.queue] }
  end
end
