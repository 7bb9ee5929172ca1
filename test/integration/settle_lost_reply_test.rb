# frozen_string_literal: true

require "test_helper"
require "delegate"

# A settle whose reply is lost (the connection breaks after Redis ran the
# script) is tried again and finds the job settled: that was this outcome's
# own write, so it counts once, and its handlers run once, not never.
class SettleLostReplyTest < Minitest::Test
  IDENTITY = "host:1:lost-reply"
  JOB = {"class" => "DoomedJob", "args" => [1], "jid" => "00112233445566778899aabb", "queue" => "default", "retry" => 0}.freeze

  class DoomedJob
    include Deckhand::Job
  end

  # The store as a server sees it, but the first settle's reply never comes
  # back: Redis ran the script, the caller hears a broken connection.
  class ReplyLost < SimpleDelegator
    attr_reader :settles

    def initialize(store)
      super
      @settles = 0
    end

    def evalsha(script, keys, argv, conn: nil)
      result = __getobj__.evalsha(script, keys, argv, conn: conn)
      return result unless script == Deckhand::Store::Scripts::Settle
      @settles += 1
      raise Deckhand::ConnectionError, "the connection broke before the reply came" if @settles == 1
      result
    end
  end

  def setup
    super
    @deaths = []
    @log = StringIO.new
    Deckhand.config = new_config
    Deckhand.config.logger = Logger.new(@log)
    Deckhand.config.death_handlers << ->(job, _error) { @deaths << job["jid"] }
  end

  def unit
    layout = Deckhand::Store::Layout::Plain
    payload = JSON.generate(JOB)
    redis.call("RPUSH", layout.lot(IDENTITY, "default", 3), payload)
    redis.call("HSET", layout.inflight(IDENTITY, "default"), "3", "1")
    lot = Deckhand::Server::Fetch::Lot.new("default", 0, 3, 1)
    Deckhand::Server::Fetch::UnitOfWork.new(lot, 0, payload)
  end

  def test_a_death_whose_reply_was_lost_is_recorded_once_and_its_handlers_run_once
    store = ReplyLost.new(Deckhand.config.store)
    handler = Deckhand::Server::Run::RetryHandler.new(config: Deckhand.config, store: store, identity: IDENTITY)
    work = unit
    outcome = handler.failed(work, JSON.parse(work.payload), DoomedJob, RuntimeError.new("boom"))
    assert_equal :dead, outcome
    assert_equal 2, store.settles, "tried again after the lost reply"
    assert_equal :written, work.recorded, "the job found settled was this outcome's own write"
    assert_equal [JOB["jid"]], zset("dead").map { |job, _| job["jid"] }, "in the dead set once"
    assert_equal [JOB["jid"]], @deaths, "the death handler ran once"
    assert_includes @log.string, "dead: retries exhausted"
  end
end
