# frozen_string_literal: true

require "test_helper"

# The acknowledgement ledger and the throttle slots, without Redis: what a
# round trip carries, and that a failed one loses and doubles nothing.
class FetchLedgerTest < Minitest::Test
  Ledger = Deckhand::Server::Fetch::Ledger
  Slots = Deckhand::Server::Fetch::ThrottleSlots
  Unit = Deckhand::Server::Fetch::UnitOfWork

  def setup = nil # no Redis needed

  def lot(index = 0, id = 5, size = 3) = Deckhand::Server::Fetch::Lot.new("q#{index}", index, id, size)

  def test_a_partly_settled_lot_reports_its_bitmap_then_the_whole_lot
    ledger = Ledger.new(queues: 1)
    lot = lot()
    units = Array.new(3) { |i| Unit.new(lot, i, "job#{i}", false) }
    assert ledger.settle(units[1], marked: false, unlock: ["lock", "jid", 100])
    refute ledger.settle(units[1], marked: false, unlock: nil), "settled once"
    due = ledger.take
    assert_equal [[0, 5, "\x02".b, []]], due.acks
    assert_equal [["lock", "jid", 100, 0]], due.unlocks
    refute ledger.news?
    ledger.settle(units[0], marked: true, unlock: nil)
    ledger.settle(units[2], marked: false, unlock: nil)
    assert_equal [[0, 5, "", [0]]], ledger.take.acks
    assert units.all?(&:settled?)
  end

  # A chunk's successes settle as each would alone: a member settled before
  # (a cancel, an expiry) is not counted again, and only members of a lot
  # give throttle slots back (a landed job took none).
  def test_a_chunks_successes_settle_each_member_once
    ledger = Ledger.new(queues: 2)
    lot = lot()
    landing = Deckhand::Server::Fetch::Idle::LandingLot.new("q1", 1)
    units = Array.new(3) { |i| Unit.new(lot, i, "job#{i}", false) } << Unit.new(landing, 0, "landed", false)
    ledger.settle(units[1], marked: true, unlock: nil)
    assert_equal [3, 2], ledger.settle_all(units, [nil, nil, ["lock", "jid", 100], nil], at: 1.0)
    assert_equal [0, 0], ledger.settle_all(units.first(3), Array.new(3), at: 1.0), "a lot's members settle once"
    due = ledger.take
    assert_equal [[0, 5, "", [1]]], due.acks, "the lot whole, the member its script marked kept"
    assert_equal [[1, "landed"]], due.landed
    assert_equal [["lock", "jid", 100, 0]], due.unlocks
    assert_equal [3, 0], ledger.take_released, "the lot's three slots, the landed job's none"
  end

  def test_a_failed_round_trip_puts_everything_back_once
    ledger = Ledger.new(queues: 2)
    landing = Deckhand::Server::Fetch::Idle::LandingLot.new("q1", 1)
    ledger.settle(Unit.new(lot, 0, "a", false), marked: false, unlock: ["lock", "jid", 100])
    ledger.settle(Unit.new(landing, 0, "b", false), marked: false, unlock: nil)
    ledger.settle(Unit.new(landing, 0, "c", false), marked: true, unlock: nil)
    due = ledger.take
    assert_equal [[1, "b"]], due.landed, "a landed job marked by its script needs no acknowledgement"
    ledger.restore(due)
    again = ledger.take
    assert_equal due.acks, again.acks
    assert_equal [[1, "b"]], again.landed
    assert_equal [["lock", "jid", 100, 0]], again.unlocks
    assert ledger.take.empty?
  end

  def test_news_is_late_after_the_lag_and_one_round_trip_carries_it_at_a_time
    ledger = Ledger.new(queues: 1, lag: 0.005)
    refute ledger.late?(100.0)
    assert_nil ledger.wait(100.0), "no news, nothing to wait for"
    ledger.settle(Unit.new(lot, 0, "a", false), marked: false, unlock: nil, at: 100.0)
    ledger.settle(Unit.new(lot, 1, "b", false), marked: false, unlock: nil, at: 100.004)
    refute ledger.late?(100.004)
    assert_in_delta 0.001, ledger.wait(100.004), 1e-9, "counted from the oldest news"
    assert ledger.late?(100.006)
    due = ledger.take
    assert ledger.in_flight?
    refute ledger.late?(200.0), "taken news is no longer waiting"
    ledger.restore(due, at: 200.0)
    assert ledger.late?(200.006), "news put back waits from when it came back"
    ledger.arrived(due)
    refute ledger.in_flight?
  end

  def test_the_end_of_a_round_trip_leaves_a_later_one_under_way
    ledger = Ledger.new(queues: 1)
    first = ledger.take
    ledger.arrived(first)
    second = ledger.take
    ledger.arrived(first)
    assert ledger.in_flight?, "the first one's end, told again, does not end the second"
    ledger.arrived(second)
    refute ledger.in_flight?
  end

  def test_a_ledger_counts_what_is_overdue
    ledger = Ledger.new(queues: 1)
    big = lot(0, 1, Ledger::MAX_UNREPORTED)
    Ledger::MAX_UNREPORTED.times do |i|
      refute ledger.overdue?
      ledger.settle(Unit.new(big, i, "j", false), marked: false, unlock: nil)
    end
    assert ledger.overdue?
  end

  Limits = Struct.new(:limits)

  def test_throttle_slots_take_the_settled_jobs_of_throttled_queues_and_give_them_back_on_failure
    ledger = Ledger.new(queues: 2)
    slots = Slots.new(Limits.new({"q1" => :limit}), %w[q0 q1])
    ledger.settle(Unit.new(lot(1, 2, 2), 0, "a", false), marked: false, unlock: nil)
    ledger.settle(Unit.new(lot(1, 2, 2), 1, "b", false), marked: false, unlock: nil)
    args = slots.args(ledger)
    assert_equal [[1, :limit, 2]], args
    assert_equal [1], slots.throttled
    slots.restore(args, ledger)
    assert_equal [[1, :limit, 2]], slots.args(ledger), "slots of a failed round trip go with the next"
    assert_equal [[1, :limit, 0]], slots.args(ledger)
    assert_nil Slots.new(Limits.new({}), %w[q0]).args(ledger)
  end

  def test_throttle_slots_say_when_to_look_again
    slots = Slots.new(nil, %w[q0])
    refute slots.due?(10.0)
    slots.held_back(500, 10.0)
    refute slots.due?(10.4)
    assert_in_delta 0.1, slots.wait(10.4), 1e-9
    slots.freed(10.45)
    assert slots.due?(10.45), "a freed slot means look now"
    slots.held_back(0, 11.0)
    assert_nil slots.wait(11.0)
  end
end
