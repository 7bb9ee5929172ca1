# frozen_string_literal: true

require "test_helper"
require_relative "../support/cluster_helpers"

# Auto-balance in cluster mode: a capped queue's hard share (a negative
# share, Balance::CappedBuffer#plan) holds in the queue-by-queue fetch too.
class AutoBalanceClusterTest < Minitest::Test
  include Deckhand::ClusterHelpers

  QUEUES = %w[cpu io low].freeze
  IDENTITY = "test-host:1:balanced"

  def test_a_negative_share_is_a_hard_limit_and_passes_nothing_on
    Deckhand::Client.push_bulk("class" => "RecordJob", "queue" => "cpu", "args" => (1..9).zip)
    Deckhand::Client.push_bulk("class" => "RecordJob", "queue" => "io", "args" => [[1]])
    Deckhand::Client.push_bulk("class" => "RecordJob", "queue" => "low", "args" => (1..9).zip)
    fetch = Deckhand::Store::Scripts::FetchByQueue.new(Deckhand.config.store, identity: IDENTITY, queues: QUEUES)
    takes = fetch.call(limit: 8, sources: [[0, 41, -2], [1, 42, 4], [2, 43, 2]], acks: [])
    assert_equal [[0, 2], [1, 1], [2, 5]], takes.map { |take| [take.source, take.payloads.size] }
    takes = fetch.call(limit: 8, sources: [[1, 44, 6], [0, 45, -3], [2, 46, 2]], acks: [])
    # io is empty: its unused share passes over the capped queue to the next.
    assert_equal [[1, 3], [2, 4]], takes.map { |take| [take.source, take.payloads.size] }
    assert_equal 4, jobs_in("cpu").size, "the capped queue gave 2, then 3, never the leftover"
  end
end
