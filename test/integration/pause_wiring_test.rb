# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

class PauseWiringTest < Minitest::Test
  def test_a_paused_queue_waits_and_runs_once_resumed
    Deckhand.config = new_config(queues: %w[a b], heartbeat_interval: 0.1, concurrency: 2)
    api = Deckhand::API.new(Deckhand.config)
    api.queue("a").pause
    with_server do
      10.times { |i| Deckhand::Client.push("class" => "RecordJob", "args" => ["b#{i}"], "queue" => "b") }
      10.times { |i| Deckhand::Client.push("class" => "RecordJob", "args" => ["a#{i}"], "queue" => "a") }
      wait_for(message: "b's jobs") { Deckhand::TestJobs.runs.size >= 10 }
      sleep 0.5 # a few heartbeats and fetches: a's jobs must still wait
      assert_equal 10, redis.call("LLEN", "queue:a")
      assert Deckhand::TestJobs.runs.none? { |_, args| args.first.start_with?("a") }
      api.queue("a").resume
      wait_for(message: "a's jobs after resume") { Deckhand::TestJobs.runs.size == 20 }
      # pause while idle: the waiter blocked on a may land one job, no more
      api.queue("a").pause
      sleep 0.3
      5.times { |i| Deckhand::Client.push("class" => "RecordJob", "args" => ["late#{i}"], "queue" => "a") }
      sleep 0.5
      assert_operator Deckhand::TestJobs.runs.size, :<=, 21
      api.queue("a").resume
      wait_for(message: "late jobs") { Deckhand::TestJobs.runs.size == 25 }
    end
  end

  def test_heartbeat_writes_per_class_metrics
    Deckhand.config = new_config(heartbeat_interval: 0.1)
    with_server do
      5.times { |i| Deckhand::Client.push("class" => "RecordJob", "args" => [i]) }
      2.times { |i| Deckhand::Client.push("class" => "FailJob", "args" => [i]) }
      metrics = nil
      wait_for(message: "metrics") do
        metrics = Deckhand::API.new(Deckhand.config).metrics(period: "1h").classes
        metrics.sum(&:count) == 7
      end
      assert_equal [["FailJob", 2, 2], ["RecordJob", 5, 0]], metrics.map { |m| [m.name, m.count, m.failed] }.sort
    end
  end
end
