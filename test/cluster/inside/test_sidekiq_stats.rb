# frozen_string_literal: true

# Runs in a drop-in child over the test cluster (test/cluster/sidekiq_api_test.rb
# starts it): Sidekiq::Stats adds up every queue's shards of the sets.
require "minitest/autorun"
require "json"
require "sidekiq"
require "sidekiq/api"

class ClusterSidekiqStatsInsideTest < Minitest::Test
  def test_stats_add_up_the_shards_and_the_queues
    store = Deckhand.config.store
    keys = store.layout
    %w[default mail billing].each_with_index do |queue, i|
      store.call("SADD", keys::QUEUES, queue)
      (i + 1).times { |n| store.call("ZADD", keys.retry_set(queue), n, JSON.generate("class" => "X", "jid" => "#{queue}#{n}", "queue" => queue)) }
      store.call("ZADD", keys.dead_set(queue), 1, JSON.generate("class" => "X", "jid" => "d#{queue}", "queue" => queue))
      store.call("LPUSH", keys.queue(queue), JSON.generate("class" => "X", "jid" => "q#{queue}", "queue" => queue))
    end
    stats = Sidekiq::Stats.new
    assert_equal [6, 0, 3, 3], [stats.retry_size, stats.scheduled_size, stats.dead_size, stats.enqueued]
    assert_equal({"billing" => 1, "default" => 1, "mail" => 1}, stats.queues)
  end
end
