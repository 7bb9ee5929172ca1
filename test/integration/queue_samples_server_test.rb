# frozen_string_literal: true

require "test_helper"

# Two real servers on one Redis: within a beat or two of starting, each
# queue's depth of this minute is in its history, sampled once for the
# fleet; and a job run costs the samples nothing (they are taken by the
# heartbeat's thread, not per job).
class QueueSamplesServerTest < Minitest::Test
  def test_a_fleet_samples_each_queue_once_a_minute
    Deckhand::Client.push_bulk("class" => "RecordJob", "args" => (1..4).to_a.zip, "queue" => "parked")
    Deckhand::Client.push("class" => "RecordJob", "args" => [1], "queue" => "elsewhere")
    minute = (Deckhand.config.store.clock.now / 60).floor
    with_server(new_config(heartbeat_interval: 0.05, queues: %w[default])) do
      with_server(new_config(heartbeat_interval: 0.05, queues: %w[default])) do
        wait_for(message: "this minute's samples") do
          Deckhand::Store::Records::QueueSamples.read(Deckhand.config.store, "elsewhere", from: minute, to: minute + 1).any?
        end
        sleep 0.3 # many beats of both processes
      end
    end
    parked = Deckhand::Store::Records::QueueSamples.read(Deckhand.config.store, "parked", from: minute, to: minute + 1)
    assert_includes 1..2, parked.size, "one sample a minute (two if the minute turned meanwhile)"
    assert_equal parked.map(&:first).uniq, parked.map(&:first)
    assert_equal [4], parked.map { |_, size, _| size }.uniq
    claims = redis.call("KEYS", "deckhand:samples:taken:*")
    assert_equal parked.size, claims.size, "one process took each minute"
  end
end
