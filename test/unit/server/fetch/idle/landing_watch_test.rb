# frozen_string_literal: true

require "test_helper"

# The bookkeeping that finds a job an idle waiter's lost reply left in its
# landing list: what the list holds beyond what was handed to a thread.
class LandingWatchTest < Minitest::Test
  Watch = Deckhand::Server::Fetch::Idle::LandingWatch
  KEY = "deckhand:landing:h:1:a:default"

  def test_no_look_is_due_until_a_wait_failed
    watch = Watch.new
    watch.waiting(KEY) { watch.held(KEY, "a") }
    assert_nil watch.look_in(KEY)
    assert_nil watch.look(KEY) { flunk "no look is due" }
  end

  def test_a_look_finds_what_was_never_handed_over_once
    watch = Watch.new
    watch.waiting(KEY) { watch.held(KEY, "a") }
    watch.lost(KEY)
    assert_equal 0.0, watch.look_in(KEY)
    assert_equal ["b"], watch.look(KEY) { %w[b a] }
    # The second look, for a move Redis made late on the dead connection.
    assert_in_delta Watch::LATE, watch.look_in(KEY), 0.5
  end

  def test_a_payload_in_the_list_twice_and_handed_over_once_is_found_once
    watch = Watch.new
    watch.waiting(KEY) { watch.held(KEY, "a") }
    watch.lost(KEY)
    assert_equal ["a"], watch.look(KEY) { %w[a a] }
  end

  # A job settled since (it left the list) is no longer counted: the same
  # bytes landing again unseen would be found.
  def test_a_look_forgets_what_left_the_list
    watch = Watch.new
    watch.waiting(KEY) { watch.held(KEY, "a") }
    watch.lost(KEY)
    assert_empty watch.look(KEY) { [] }
    watch.lost(KEY)
    assert_equal ["a"], watch.look(KEY) { ["a"] }
  end

  def test_a_look_waits_for_the_other_waits_on_the_list
    watch = Watch.new
    watch.lost(KEY)
    in_wait = Queue.new
    release = Queue.new
    other = Thread.new { watch.waiting(KEY) { in_wait << true && release.pop && watch.held(KEY, "x") } }
    in_wait.pop
    looker = Thread.new { watch.look(KEY) { ["x"] } }
    sleep 0.05 until looker.stop? # blocked on the other wait, not looking yet
    release << true
    assert_empty looker.value, "the other wait's move was handed over, not found"
    other.join
  end

  def test_many_payloads_counted_make_a_look_due_that_prunes_them
    watch = Watch.new
    Watch::PRUNE_AT.times { |i| watch.held(KEY, i.to_s) }
    assert_equal 0.0, watch.look_in(KEY)
    assert_empty watch.look(KEY) { ["7"] }
    assert_nil watch.look_in(KEY)
  end
end
