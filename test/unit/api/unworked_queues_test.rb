# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

# Queues holding jobs that no live process works: what the server warns of at
# boot and the dashboard shows.
class UnworkedQueuesTest < Minitest::Test
  def api = Deckhand::API.new(Deckhand.config)

  def push(n, queue:)
    Deckhand::Client.push_bulk("class" => "RecordJob", "args" => (1..n).to_a.zip, "queue" => queue)
  end

  def test_a_queue_with_jobs_and_no_process_working_it_is_unworked
    push(2, queue: "mailers")
    push(1, queue: "critical")
    api.queue("critical").pause
    redis.call("SADD", "queues", "empty")
    assert_equal [["mailers", 2]], api.unworked_queues.map { |queue| [queue.name, queue.size] }
  end

  # A live process (here a Sidekiq one, as its heartbeat records it) that
  # lists a queue works it; one whose heartbeat stopped long ago does not.
  def test_queues_a_live_process_works_are_not
    push(2, queue: "mailers")
    push(2, queue: "reports")
    push(2, queue: "exports")
    beat("alive:1:a", ["mailers", "default"], Time.now.to_f)
    beat("stale:2:b", ["exports"], Time.now.to_f - 3600)
    assert_equal ["exports", "reports"], api.unworked_queues.map(&:name).sort
    assert_equal ["exports"], Deckhand::API::UnworkedQueues.new(Deckhand.config, also_worked: ["reports"]).map(&:name)
  end

  private

  def beat(identity, queues, at)
    redis.call("SADD", "processes", identity)
    redis.call("HSET", identity, "info", JSON.generate("hostname" => "h", "queues" => queues, "concurrency" => 5), "busy", "0", "beat", at.to_s)
  end
end
