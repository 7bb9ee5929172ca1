# frozen_string_literal: true

require "test_helper"
require "deckhand/server"

# Which idle processors wait in Redis themselves, and the end of their waits
# at quiet, against a real Redis.
class ProcessorWaitsTest < Minitest::Test
  Waits = Deckhand::Server::Fetch::Idle::ProcessorWaits
  Capsule = Deckhand::Config::Capsule

  def store = Deckhand::RedisHarness.store

  def waits(concurrency: 10, queues: ["default"], **options)
    capsule = Capsule.new("default", concurrency: concurrency, queues: queues, **options)
    Waits.for(capsule, store: store, identity: "h:1:ab", watch: Deckhand::Server::Fetch::Idle::LandingWatch.new,
      balanced: false, logger: QUIET_LOGGER)
  end

  def test_capsules_of_fewer_than_three_threads_and_fiber_capsules_keep_their_processors_on_the_buffer
    assert_nil waits(concurrency: 2)
    assert_nil waits(concurrency: 10, fibers: true)
    refute_nil waits(concurrency: 3)
  end

  def test_two_a_queue_only_once_a_fetch_found_it_empty_and_never_every_thread
    w = waits(concurrency: 4, queues: %w[a b])
    assert_nil w.claim(Object.new), "no queue found empty yet"
    assert_equal [], w.arm([1])
    claimed = Array.new(4) { w.claim(Object.new) }
    assert_equal [0, 0, nil, nil], claimed, "two on queue a, none on paused b"
    w = waits(concurrency: 3, queues: %w[a b])
    w.arm([])
    assert_equal [0, 1, nil], Array.new(3) { w.claim(Object.new) }, "one thread of the three stays on the buffer"
    assert_equal [0, 1], w.arm([])
  end

  def test_the_last_waiter_of_a_queue_that_takes_a_job_says_so
    w = waits
    w.arm([])
    first, second = Object.new, Object.new
    w.claim(first)
    w.claim(second)
    refute w.release(first, 0, moved: "job"), "another still waits"
    refute w.release(second, 0, moved: nil), "a wait that timed out wakes nothing"
    w.claim(first)
    assert w.release(first, 0, moved: "job")
  end

  # A CLIENT UNBLOCK that reaches Redis before the BLMOVE it means to end
  # ends nothing: the close sends it again until the wait has ended.
  def test_close_ends_a_wait_even_one_whose_blmove_is_sent_after_the_first_unblock
    w = waits
    w.arm([])
    wait = w.processor_wait
    index = w.claim(wait)
    w.named(wait, wait.id)
    ended = Queue.new
    waiter = Thread.new do
      sleep 0.2 # the close's first CLIENT UNBLOCK goes out before this BLMOVE
      result = wait.call("processor-waits-test")
      ended << result
      w.release(wait, index, moved: result[0])
    end
    started = monotonic
    w.close
    assert_operator monotonic - started, :<, 1.5, "ended well before the wait's 2 s timeout"
    assert_nil ended.pop[0], "the wait ended with no job"
    assert_nil w.claim(Object.new), "no wait begins after the close"
  ensure
    waiter&.join
    wait&.close
  end
end
