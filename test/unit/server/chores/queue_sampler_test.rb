# frozen_string_literal: true

require "test_helper"
require "deckhand/server"

# The queue sampler as the fleet runs it: every process ticks after its
# beats, one of them samples each minute, and a Redis failure costs a gap.
class QueueSamplerTest < Minitest::Test
  QueueSampler = Deckhand::Server::Chores::QueueSampler
  QueueSamples = Deckhand::Store::Records::QueueSamples

  def sampler(identity, store: Deckhand.config.store) = QueueSampler.new(store: store, identity: identity, logger: QUIET_LOGGER)

  def test_one_process_of_the_fleet_samples_each_minute
    Deckhand::Client.push_bulk("class" => "RecordJob", "args" => (1..3).to_a.zip, "queue" => "mailers")
    fleet = %w[host-a:1 host-b:2 host-c:3].map { |identity| sampler(identity) }
    now = (Deckhand.config.store.clock.now / 60).floor * 60.0
    beats = [now + 1, now + 2, now + 30, now + 59].flat_map { |at| fleet.map { |process| process.tick(at) } }
    assert_equal [1], beats.compact, "one sampling in the minute, however many processes beat in it"
    assert_equal [[(now / 60).to_i, 3]], QueueSamples.read(Deckhand.config.store, "mailers", from: (now / 60).to_i - 5, to: (now / 60).to_i + 1).map { |minute, size, _| [minute, size] }

    Deckhand::Client.push("class" => "RecordJob", "args" => [4], "queue" => "mailers")
    assert_equal [1], fleet.map { |process| process.tick(now + 61) }.compact, "the next minute is sampled again"
    assert_equal [3, 4], QueueSamples.read(Deckhand.config.store, "mailers", from: (now / 60).to_i - 5, to: (now / 60).to_i + 1).map { |_, size, _| size }
  end

  def test_redis_failing_leaves_a_gap_not_an_error
    config = new_config(redis: {url: "redis://127.0.0.1:1", timeout: 0.2, reconnect_attempts: 0})
    assert_nil sampler("host-a:1", store: config.store).tick(60.0 * 29_000_000)
  end
end
