# frozen_string_literal: true

require "test_helper"
require_relative "../../torture/support/faults/drill"
require_relative "../support/private_redis"

# The fault drill, short (bin/torture faults runs it long, against real
# server processes): a server in this process works a stream of jobs that
# succeed, fail and retry, die, wait in the schedule, hold unique locks,
# belong to batches, wait for a throttled queue, a fair queue's turn or a
# limiter, are debounced or of a paused class, and a periodic entry's ticks, while Redis is broken one way after
# another; once the stream drains, every pushed jid must be in exactly one
# place. The system's Redis is a private one the drill may break; the books
# are kept in the suite's Redis, which it never touches.
class FaultDrillTest < Minitest::Test
  Drill = Torture::Faults::Drill
  HOLD = 0.3
  # Between faults (the full drill waits 0.2 s): the stream keeps the server
  # busy, so it meets the next fault while it may still be mending the last.
  GAP = 0.1

  def setup
    super
    RedisClient.new(url: url).then do |r|
      r.call("FLUSHALL")
      r.close
    end
    ENV["TORTURE_LEDGER_URL"] = Deckhand::RedisHarness.url
  end

  # The Redis the drill breaks: one of its own, apart from every other test's.
  def url = Deckhand::PrivateRedis.server(:faults).url

  def test_keys_of_the_wrong_type_under_a_running_server_lose_nothing
    figures = drill(Drill::ALL - Drill::SETTLE_PATH - %w[readonly oom])
    # The features whose keys it breaks were at work: jobs went over the
    # limiter's limit and were rescheduled, and the periodic entry ticked.
    assert_operator figures["over_limit"], :>, 0, "no job was ever over the limit"
    assert_operator figures["ticks"], :>, 0, "the periodic entry never ticked"
    assert_operator figures["debounce_replaced"], :>, 0, "no debounced push ever replaced its key's last"
    assert_operator figures["held_moved"], :>, 0, "no job of the paused class was ever held and moved back"
  end

  # The keys settle.lua writes when a job fails (its retry, dead and
  # schedule sets).
  def test_settle_path_keys_of_the_wrong_type_under_a_running_server_lose_nothing
    drill(Drill::SETTLE_PATH)
  end

  def test_a_read_only_redis_under_a_running_server_loses_nothing
    drill(%w[readonly])
  end

  def test_an_out_of_memory_redis_under_a_running_server_loses_nothing
    drill(%w[oom])
  end

  private

  def drill(faults)
    config = Deckhand::Config.new(redis: {url: url}, concurrency: 5, scheduler_interval: 0.2, timeout: 2,
      queues: Torture::Faults::Setup::QUEUES)
    Torture::Faults::Setup.apply(config)
    log = StringIO.new
    config.logger = Logger.new(log)
    Deckhand::Batch.install(config)
    Deckhand.config = config
    launcher = Deckhand::Server::Launcher.new(config.freeze!, on_signal: ->(_) {})
    launcher.start
    drill = Drill.new(redis_url: url, ledger_url: Deckhand::RedisHarness.url, hold: HOLD, gap: GAP, drain_timeout: 20)
    drill.run(faults, identities: -> { [launcher.identity] }, stop: -> { launcher.stop })
    figures = drill.figures.map { |k, v| "#{k}=#{v}" }.join(" ")
    assert_empty drill.failures, "#{faults.join(", ")}: #{figures}"
    assert_equal faults.size, drill.figures["faults"], "every fault was injected (#{figures})"
    assert_operator drill.figures["jobs"], :>, 50, figures
    assert_empty log.string.lines.grep(/ crashed/), "no thread of the server may die on a fault"
    drill.figures
  ensure
    launcher&.stop
    drill&.close
  end
end
