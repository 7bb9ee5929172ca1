# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "support/throttle_probe"

# A throttled partitioned queue in plain mode: each partition enforces its
# share of the limit on its own list, so two server processes with more
# threads than the limit never run more of the queue's jobs at once, and
# the API shows the queue's slots added up.
class PartitionedThrottleIntegrationTest < Minitest::Test
  Probe = Deckhand::ThrottleProbe
  LISTS = Deckhand::Store::Layout::PartitionNames.list("default", 3)
  SHARES = [2, 1, 1].freeze # 4 over 3 partitions

  def setup
    super
    Probe.reset
    Deckhand.config = new_config(partitions: {"default" => 3}, throttle: {"default" => {concurrency: 4}},
      concurrency: 6, heartbeat_interval: 0.1, timeout: 2)
  end

  def api = Deckhand::API.new

  def held_by_list = LISTS.map { |list| redis.call("HGET", "deckhand:throttle:#{list}", "~held").to_i }

  def waiting = LISTS.sum { |list| redis.call("LLEN", "queue:#{list}") }

  def test_two_processes_never_run_more_than_the_limit_and_every_job_runs
    jids = Probe.perform_bulk(Array.new(12) { |i| [i] })
    assert_equal 12, waiting
    with_server do
      with_server do
        wait_for(message: "the limit reached") { Probe::GATE.num_waiting >= 4 }
        assert_equal 8, waiting, "the 12 threads took no more than the 4 slots"
        assert_equal SHARES, held_by_list, "each partition holds its share"
        assert_equal 4, Probe::GATE.num_waiting
        assert_equal 4, api.throttle("default").held
        assert_equal [["default", {"concurrency" => 4}, 4]], api.throttles.map { |t| [t.queue, t.limit, t.held] }
        12.times do |i|
          Probe::GATE << :go
          wait_for(message: "job #{i + 1} done") { Deckhand::TestJobs.runs.size == i + 1 }
          held_by_list.zip(SHARES) { |held, share| assert_operator held, :<=, share }
        end
        wait_for(message: "every slot back") { api.throttle("default").held.zero? }
      end
    end
    assert_equal 4, Probe.most, "at most 4 at once, and 4 reached"
    assert_equal jids.sort, Deckhand::TestJobs.runs.map(&:first).sort
    assert_equal [0, 0, 0], held_by_list
  end

  def test_usage_adds_up_the_partitions_slots_and_tokens
    redis.call("HSET", "deckhand:throttle:default", "~held", 2, "t", "0.5")
    redis.call("HSET", "deckhand:throttle:default~p2", "~held", 1, "t", "1.25")
    store = Deckhand.config.store
    assert_equal({held: 3, tokens: 1.75}, Deckhand::Store::Features::Throttles.usage(store, "default", lists: LISTS))
    assert_equal({held: 2, tokens: 0.5}, Deckhand::Store::Features::Throttles.usage(store, "default"), "one list when none given")
    assert_equal({held: 0, tokens: nil}, Deckhand::Store::Features::Throttles.usage(store, "mail"))
    assert_equal({"default" => 3, "mail" => 0}, Deckhand::Store::Features::Throttles.held(store, %w[default mail], lists: Deckhand.config.partitions.method(:names)))
    assert_equal 3, api.throttle("default").held
  end
end
