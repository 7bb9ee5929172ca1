# frozen_string_literal: true

require "test_helper"
require "deckhand/server"

# A fetched job of a paused class is held, as fetched, in one step with
# leaving the in-flight record; a resume the heartbeat already carried out
# while the hold was being written moves the job back at once.
class ClassHoldTest < Minitest::Test
  IDENTITY = "host:1:hold"
  JOB = %({"class":"ReportJob","args":["caf\u00e9",1.0],"jid":"0123456789abcdef01234567","queue":"default"})

  Keys = Deckhand::Store::Layout::Plain

  # The fetcher's side: which units the processor reported settled.
  class Settled
    attr_reader :units

    def initialize = @units = []

    def done(unit, marked: false, unlock: nil) = @units << [unit.position, marked]
  end

  # The retry handler, with a resume seen by the heartbeat while the hold is written.
  class ResumedWhileWriting < SimpleDelegator
    def initialize(retries, pause)
      super(retries)
      @pause = pause
    end

    def write(unit, &)
      __getobj__.write(unit, &).tap { @pause.update([]) }
    end
  end

  def store = Deckhand.config.store

  def unit
    redis.call("RPUSH", Keys.lot(IDENTITY, "default", 9), JOB)
    redis.call("HSET", Keys.inflight(IDENTITY, "default"), "9", "1")
    lot = Deckhand::Server::Fetch::Lot.new("default", 0, 9, 1)
    Deckhand::Server::Fetch::UnitOfWork.new(lot, 0, JOB, false)
  end

  def hold(retries: nil)
    @pause = Deckhand::Server::Run::ClassPause.new
    @pause.update(["ReportJob"])
    @fetcher = Settled.new
    retries ||= Deckhand::Server::Run::RetryHandler.new(config: Deckhand.config, store: store, identity: IDENTITY)
    retries = yield(retries, @pause) if block_given?
    Deckhand::Server::Run::ClassHold.new(pause: @pause, retries: retries, fetcher: @fetcher, store: store, logger: Deckhand.config.logger)
  end

  def held = redis.call("ZRANGE", Keys.held("default", "ReportJob"), 0, -1)

  def test_a_job_of_a_paused_class_is_held_as_fetched_and_reported_settled
    job = JSON.parse(JOB)
    holder = hold
    refute holder.call(unit, job.merge("class" => "OtherJob")), "another class runs"
    assert holder.call(unit, job)
    assert_equal [JOB], held
    assert_equal "", redis.call("HGET", Keys.inflight(IDENTITY, "default"), "9:0"), "marked settled in its lot"
    assert_equal [[0, true]], @fetcher.units
  end

  def test_a_hold_written_after_the_heartbeats_release_goes_back_at_once
    holder = hold { |retries, pause| ResumedWhileWriting.new(retries, pause) }
    assert holder.call(unit, JSON.parse(JOB))
    assert_empty held
    assert_equal [JOB], redis.call("LRANGE", "queue:default", 0, -1)
  end
end
