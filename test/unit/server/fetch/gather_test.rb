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
    job = {"class" => "ChunkJob"}
    refute gather.join(:u1, job), "no chunk of the class gathers: the thread starts one"
    open = gather.open(job, 3) # a chunk of 4: its first member and 3 slots
    refute gather.join(:u1, {"class" => "OtherJob"}), "a chunk takes jobs of its own class only"
    refute gather.join(:u1, {"class" => "ChunkJob", "wrapped" => "Other"}), "nor a wrapper's job of another class"
    one = {"class" => "ChunkJob", "n" => 1}
    two = {"class" => "ChunkJob", "n" => 2}
    assert gather.join(:u1, one)
    assert gather.claim(open), "the gathering thread's own next job takes a slot too"
    assert gather.join(:u2, two)
    refute gather.join(:u3, {"class" => "ChunkJob", "n" => 3}), "full: the thread starts a chunk of its own"
    refute gather.claim(open)
    assert_equal 0, gather.left(open)
    assert_equal [[:u1, one], [:u2, two]], gather.joined(open)
    assert_empty gather.joined(open), "each joined job is handed over once"
    assert_empty gather.close(job, open)
  end

  def test_closing_hands_over_the_last_joined_and_ends_joining
    job = {"class" => "ChunkJob"}
    open = gather.open(job, 10)
    assert gather.join(:u1, job)
    assert_equal [[:u1, job]], gather.close(job, open)
    refute gather.join(:u2, job), "a closed chunk takes no more"
    newer = gather.open(job, 10)
    gather.close(job, open) # an older chunk's close leaves the newer one open
    assert gather.join(:u3, job)
    assert_equal [[:u3, job]], gather.close(job, newer)
  end

  def test_a_thread_waiting_for_the_buffer_hears_of_a_joined_job_at_once
    job = {"class" => "ChunkJob"}
    open = gather.open(job, 10)
    waiting = Thread.new { [gather.next(5, open), monotonic] }
    sleep 0.05
    joined_at = monotonic
    assert gather.join(:u1, job)
    more, woke_at = waiting.value
    assert_same Fetch::Gather::JOINED, more
    assert_operator woke_at - joined_at, :<, 1, "not the 5 s wait"
    assert_equal [[:u1, job]], gather.joined(open)
  end

  def test_without_a_buffer_nothing_joins
    gather = Fetch::Gather.new(nil, Planner.new)
    gather.open({"class" => "ChunkJob"}, 10)
    refute gather.join(:u1, {"class" => "ChunkJob"}), "an auto-balanced capsule runs chunks of one"
  end

  def monotonic = Process.clock_gettime(Process::CLOCK_MONOTONIC)
end
