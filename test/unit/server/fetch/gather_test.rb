# frozen_string_literal: true

require "test_helper"

# A chunk's way to more members, without Redis: while a chunk of a class
# gathers, other threads join their jobs of that class to it, never past
# its size, never after it closed, and a gathering thread that waits for
# the buffer hears of them at once.
class FetchGatherTest < Minitest::Test
  Fetch = Deckhand::Server::Fetch

  def setup = nil # no Redis needed

  # Stands in for the fetcher's planner: counts the room asked for.
  class Planner
    attr_reader :asked

    def initialize = @asked = 0

    def room(delta) = @asked += delta

    def quiet? = false

    def wake = nil
  end

  def gather = @gather ||= Fetch::Gather.new(Fetch::Buffer.new(nil, logger: nil), Planner.new)

  def test_jobs_join_the_open_chunk_of_their_class_up_to_its_size_and_not_after_it_closed
    key = ["ChunkJob", nil]
    refute gather.join(key, :u1, {}), "no chunk of the class gathers: the thread starts one"
    open = gather.open(key, 3) # a chunk of 4: its first member and 3 slots
    refute gather.join(["OtherJob", nil], :u1, {}), "a chunk takes jobs of its own class only"
    assert gather.join(key, :u1, {"n" => 1})
    assert gather.claim(open), "the gathering thread's own next job takes a slot too"
    assert gather.join(key, :u2, {"n" => 2})
    refute gather.join(key, :u3, {"n" => 3}), "full: the thread starts a chunk of its own"
    refute gather.claim(open)
    assert_equal 0, gather.left(open)
    assert_equal [[:u1, {"n" => 1}], [:u2, {"n" => 2}]], gather.joined(open)
    assert_empty gather.joined(open), "each joined job is handed over once"
    assert_empty gather.close(key, open)
  end

  def test_closing_hands_over_the_last_joined_and_ends_joining
    key = ["ChunkJob", nil]
    open = gather.open(key, 10)
    assert gather.join(key, :u1, {})
    assert_equal [[:u1, {}]], gather.close(key, open)
    refute gather.join(key, :u2, {}), "a closed chunk takes no more"
    newer = gather.open(key, 10)
    gather.close(key, open) # an older chunk's close leaves the newer one open
    assert gather.join(key, :u3, {})
    assert_equal [[:u3, {}]], gather.close(key, newer)
  end

  def test_a_thread_waiting_for_the_buffer_hears_of_a_joined_job_at_once
    key = ["ChunkJob", nil]
    open = gather.open(key, 10)
    waiting = Thread.new { [gather.next(5, open), monotonic] }
    sleep 0.05
    joined_at = monotonic
    assert gather.join(key, :u1, {})
    more, woke_at = waiting.value
    assert_same Fetch::Gather::JOINED, more
    assert_operator woke_at - joined_at, :<, 1, "not the 5 s wait"
    assert_equal [[:u1, {}]], gather.joined(open)
  end

  def test_without_a_buffer_nothing_joins
    gather = Fetch::Gather.new(nil, Planner.new)
    gather.open(["ChunkJob", nil], 10)
    refute gather.join(["ChunkJob", nil], :u1, {}), "an auto-balanced capsule runs chunks of one"
  end

  def monotonic = Process.clock_gettime(Process::CLOCK_MONOTONIC)
end
