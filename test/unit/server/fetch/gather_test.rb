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
    open = gather.join_or_open(:u0, job, 3) # a chunk of 4: its first member and 3 slots
    refute_nil open, "no chunk of the class gathers: the thread opens one"
    refute_nil gather.join_or_open(:u1, {"class" => "OtherJob"}, 3), "a chunk takes jobs of its own class only"
    refute_nil gather.join_or_open(:u1, {"class" => "ChunkJob", "wrapped" => "Other"}, 3), "nor a wrapper's job of another class"
    one = {"class" => "ChunkJob", "n" => 1}
    two = {"class" => "ChunkJob", "n" => 2}
    assert_nil gather.join_or_open(:u1, one, 3)
    assert gather.claim(open), "the gathering thread's own next job takes a slot too"
    assert_nil gather.join_or_open(:u2, two, 3)
    refute_nil gather.join_or_open(:u3, {"class" => "ChunkJob", "n" => 3}, 3), "full: the thread opens a chunk of its own"
    refute gather.claim(open)
    assert_equal 0, gather.left(open)
    assert_equal [[:u1, one], [:u2, two]], gather.joined(open)
    assert_empty gather.joined(open), "each joined job is handed over once"
    assert_empty gather.close(job, open)
  end

  def test_threads_that_find_no_chunk_at_once_open_one_between_them
    job = {"class" => "ChunkJob"}
    gather = self.gather # built once, before the threads
    ready = Queue.new
    go = Queue.new
    threads = Array.new(8) do |i|
      Thread.new do
        ready << i
        go.pop
        gather.join_or_open(:"u#{i}", job, 10)
      end
    end
    8.times { ready.pop }
    8.times { go << true }
    opened = threads.map(&:value).compact
    assert_equal 1, opened.size, "one opened the chunk; the others joined it"
    assert_equal 7, gather.close(job, opened.first).size
  end

  def test_closing_hands_over_the_last_joined_and_ends_joining
    job = {"class" => "ChunkJob"}
    open = gather.join_or_open(:u0, job, 10)
    assert_nil gather.join_or_open(:u1, job, 10)
    assert_equal [[:u1, job]], gather.close(job, open)
    newer = gather.join_or_open(:u2, job, 10)
    refute_nil newer, "a closed chunk takes no more: the thread opens another"
    gather.close(job, open) # an older chunk's close leaves the newer one open
    assert_nil gather.join_or_open(:u3, job, 10)
    assert_equal [[:u3, job]], gather.close(job, newer)
  end

  def test_a_thread_waiting_for_the_buffer_hears_of_a_joined_job_at_once
    job = {"class" => "ChunkJob"}
    open = gather.join_or_open(:u0, job, 10)
    waiting = Thread.new { [gather.next(5, open), monotonic] }
    sleep 0.05
    joined_at = monotonic
    assert_nil gather.join_or_open(:u1, job, 10)
    more, woke_at = waiting.value
    assert_same Fetch::Gather::JOINED, more
    assert_operator woke_at - joined_at, :<, 1, "not the 5 s wait"
    assert_equal [[:u1, job]], gather.joined(open)
  end

  def test_a_full_chunk_takes_no_more_from_the_buffer
    buffer = Fetch::Buffer.new(nil, logger: nil)
    gather = Fetch::Gather.new(buffer, Planner.new)
    job = {"class" => "ChunkJob"}
    open = gather.join_or_open(:u0, job, 1)
    buffer.push(:waiting)
    assert_equal :waiting, gather.next(5, open), "a job waiting is taken at once"
    buffer.push(:next)
    assert gather.claim(open)
    started = monotonic
    assert_nil gather.next(5, open), "no slot left: the gathering ends"
    assert_operator monotonic - started, :<, 1, "at once, not after the wait"
    assert_equal :next, buffer.pop_now, "the job stays for the other threads"
  end

  def test_without_a_buffer_nothing_joins
    gather = Fetch::Gather.new(nil, Planner.new)
    refute_nil gather.join_or_open(:u0, {"class" => "ChunkJob"}, 10)
    refute_nil gather.join_or_open(:u1, {"class" => "ChunkJob"}, 10), "an auto-balanced capsule runs chunks of one"
  end

  def monotonic = Process.clock_gettime(Process::CLOCK_MONOTONIC)
end
