# frozen_string_literal: true

require "test_helper"

# Fetched jobs waiting to start, without Redis: a lot holds its payloads as
# one String until processors take them, each job's unit is made as it is
# taken, and nothing is lost, doubled or altered on the way.
class FetchBufferTest < Minitest::Test
  Lot = Deckhand::Server::Fetch::Lot
  Buffer = Deckhand::Server::Fetch::Buffer
  Unit = Deckhand::Server::Fetch::UnitOfWork

  def setup = nil # no Redis needed

  # Stands in for the requeue script: records what was handed back.
  class Requeue
    attr_reader :calls

    def initialize = @calls = []

    def some(jobs, landed: []) = @calls << [jobs, landed]
  end

  def payloads = ['{"class":"A","jid":"1"}', '{"class":"B","jid":"2","x":"é"}', '{"class":"C","jid":"3"}'].map(&:dup)

  def test_a_lot_holds_its_payloads_as_one_string_and_hands_out_each_job_once_in_order
    fetched = payloads
    expected = fetched.map(&:dup)
    lot = Lot.new("default", 0, 7, 3).hold(fetched)
    assert_empty fetched, "the reply's Strings are let go at once"
    units = Array.new(3) { lot.claim }
    assert_equal [0, 1, 2], units.map(&:position)
    assert_equal expected, units.map(&:payload)
    assert units.all? { |unit| unit.lot.equal?(lot) && unit.payload.frozen? && unit.payload.encoding == Encoding::UTF_8 }
    assert_equal [:lot, 7, 1], units[1].place
  end

  def test_payloads_of_different_encodings_are_held_as_they_are
    fetched = [+"{}", "\xFF{}".b]
    lot = Lot.new("default", 0, 7, 2).hold(fetched)
    units = Array.new(2) { lot.claim }
    assert_equal [+"{}", "\xFF{}".b], units.map(&:payload)
    assert_equal [Encoding::UTF_8, Encoding::BINARY], units.map { |unit| unit.payload.encoding }
  end

  def test_the_buffer_makes_a_unit_when_a_job_is_taken
    buffer = Buffer.new(Requeue.new, logger: Logger.new(nil))
    lot = Lot.new("default", 0, 7, 3).hold(payloads)
    buffer.push_lots([lot])
    assert_equal 3, buffer.size
    assert_instance_of Unit, buffer.pop
    landed = Unit.new(Deckhand::Server::Fetch::Idle::LandingLot.new("default", 0), 0, "{}", false)
    buffer.push(landed)
    assert_equal [1, 2], [buffer.pop.position, buffer.pop.position]
    assert_same landed, buffer.pop
    buffer.close
    assert_nil buffer.pop
  end

  def lot(queue, index, count) = Lot.new(queue, index, 40 + index, count).hold(Array.new(count) { |i| %({"jid":"#{queue}-#{i}"}) })

  def taken(buffer, count) = Array.new(count) { buffer.pop.queue_name }

  # A batch split 150 to 50 by weight runs about 3 to 1 all along, each
  # queue's jobs in their order.
  def test_weighted_lots_are_dealt_out_mixed_in_proportion
    buffer = Buffer.new(Requeue.new, logger: Logger.new(nil), interleave: true, random: Random.new(42))
    buffer.push_lots([lot("light", 1, 50), lot("heavy", 0, 150)])
    first = taken(buffer, 100)
    assert_includes 65..85, first.count("heavy"), "about 75 of the first 100"
    rest = taken(buffer, 100)
    assert_equal [150, 50], [(first + rest).count("heavy"), (first + rest).count("light")]
    assert buffer.empty?
  end

  def test_strict_lots_run_one_after_the_other
    buffer = Buffer.new(Requeue.new, logger: Logger.new(nil))
    buffer.push_lots([lot("high", 0, 3), lot("low", 1, 2)])
    assert_equal %w[high high high low low], taken(buffer, 5)
  end

  def test_jobs_not_taken_are_handed_back_each_once
    requeue = Requeue.new
    buffer = Buffer.new(requeue, logger: Logger.new(nil))
    buffer.push_lots([Lot.new("default", 0, 7, 3).hold(payloads), Lot.new("other", 1, 8, 1).hold(payloads.first(1))])
    buffer.pop
    landed = Unit.new(Deckhand::Server::Fetch::Idle::LandingLot.new("default", 0), 0, "{}", false)
    buffer.push(landed)
    yielded = []
    buffer.hand_back { |unit| yielded << unit }
    assert_equal [[[[0, 7, 1], [0, 7, 2], [1, 8, 0]], [[0, "{}"]]]], requeue.calls
    assert_equal 4, yielded.size
    assert_equal 0, buffer.size
  end

  # A chunk gathering its members waits for the next job only so long.
  def test_a_timed_pop_returns_a_job_that_comes_in_time_and_nil_when_none_does
    buffer = Buffer.new(Requeue.new, logger: nil)
    started = monotonic
    assert_nil buffer.pop(timeout: 0.05)
    assert_operator monotonic - started, :>=, 0.05
    lot = Lot.new("default", 0, 7, 1).hold(payloads.first(1))
    buffer.push_lots([lot])
    assert_equal 0, buffer.pop(timeout: 0).position, "a job waiting is taken without waiting"
    late = Thread.new { buffer.pop(timeout: 5) }
    buffer.push(Unit.new(lot, 1, "{}", false))
    assert_equal 1, late.value.position
    buffer.push(Unit.new(lot, 2, "{}", false))
    buffer.close
    started = monotonic
    assert_equal 2, buffer.pop(timeout: 5).position, "a closed buffer still hands out what it holds"
    assert_nil buffer.pop(timeout: 5)
    assert_operator monotonic - started, :<, 1, "then nil at once"
  end

  # A chunk gathering a backlog takes each member waiting without a wait.
  def test_pop_now_takes_a_waiting_job_and_never_waits
    buffer = Buffer.new(Requeue.new, logger: nil)
    assert_nil buffer.pop_now
    buffer.push_lots([Lot.new("default", 0, 7, 2).hold(payloads.first(2))])
    assert_equal [0, 1], Array.new(2) { buffer.pop_now.position }, "each job once, in order"
    assert_nil buffer.pop_now
    buffer.push(Unit.new(nil, 5, "{}", false))
    buffer.close
    assert_equal 5, buffer.pop_now.position, "a closed buffer still hands out what it holds"
    assert_nil buffer.pop_now
  end
end
