# frozen_string_literal: true

require "test_helper"
require_relative "../support/cluster_helpers"

# Chunks (docs/chunks.md) in cluster mode: a chunk's members are fetched
# jobs of their queue's slot like any other, each settled in its own lot;
# on a partitioned queue a chunk gathers members fetched from partitions
# on every primary. Each member runs once, a failed one retries alone in
# its queue's retry set, and nothing stays in flight.
class ClusterChunksTest < Minitest::Test
  include Deckhand::ClusterHelpers

  class SlotChunkJob
    include Deckhand::Job

    deckhand_options chunk: {size: 25, wait: 0.3}, retry: 3
    CALLS = Queue.new

    def perform_chunk(chunk)
      CALLS << chunk.size
      chunk.each do |(n), job|
        Deckhand::TestJobs.record([job["jid"], n])
        chunk.fail(job, ArgumentError.new("member #{n} failed")) if n == 7
      end
    end
  end

  def setup
    super
    SlotChunkJob::CALLS.clear
  end

  def sizes
    found = []
    found << SlotChunkJob::CALLS.pop until SlotChunkJob::CALLS.empty?
    found
  end

  def inflight(identity, queues) = Deckhand::Store::Inflight.payloads(Deckhand.config.store, identity, queues).values.flatten

  def test_a_placed_queues_members_run_in_chunks_once_and_a_failed_one_retries_alone
    Deckhand.config = new_config(concurrency: 2, queues: %w[reports])
    jids = SlotChunkJob.set(queue: "reports").perform_bulk((1..60).zip)
    with_server do |launcher|
      wait_for(message: "every member run and the failure in retry") do
        Deckhand::TestJobs.runs.size == 60 && cluster.call("ZCARD", keys.retry_set("reports")) == 1
      end
      wait_for(message: "nothing left in flight") { inflight(launcher.identity, %w[reports]).empty? }
    end
    calls = sizes
    assert_equal 60, calls.sum
    assert_operator calls.max, :>, 1, "the members ran in chunks: #{calls.inspect}"
    assert_equal jids.sort, Deckhand::TestJobs.runs.map(&:first).sort, "each member once"
    retried = JSON.parse(cluster.call("ZRANGE", keys.retry_set("reports"), 0, 0).first)
    assert_equal [[7], "reports", 1], [retried["args"], retried["queue"], retried["retry_count"].to_i + 1]
    assert_equal 0, cluster.call("LLEN", keys.queue("reports"))
  end

  def test_a_chunk_gathers_a_partitioned_queues_members_from_every_primary
    Deckhand.config = new_config(partitions: {"default" => 6}, concurrency: 2)
    lists = Deckhand::Store::Layout::PartitionNames.list("default", 6)
    jids = SlotChunkJob.perform_bulk((1..60).zip)
    assert_equal 60, lists.sum { |list| cluster.call("LLEN", keys.queue(list)) }
    assert_operator lists.count { |list| cluster.call("LLEN", keys.queue(list)).positive? }, :>, 1, "spread over partitions"
    with_server do |launcher|
      wait_for(message: "every member run") { Deckhand::TestJobs.runs.size == 60 }
      wait_for(message: "nothing left in flight") { inflight(launcher.identity, lists).empty? }
    end
    calls = sizes
    assert_equal 60, calls.sum
    assert_operator calls.max, :>, 1, "the members ran in chunks: #{calls.inspect}"
    assert_equal jids.sort, Deckhand::TestJobs.runs.map(&:first).sort, "each member once"
    assert_equal [0] * 6, lists.map { |list| cluster.call("LLEN", keys.queue(list)) }
    list = lists.find { |l| cluster.call("ZCARD", keys.retry_set(l)) == 1 }
    assert list, "the failed member in its partition's retry set"
    assert_equal "default", JSON.parse(cluster.call("ZRANGE", keys.retry_set(list), 0, 0).first)["queue"]
  end
end
