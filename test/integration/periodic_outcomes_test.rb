# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

class TickWorkJob
  include Deckhand::Job

  def perform = sleep(0.5)
end

class TickFailJob
  include Deckhand::Job

  deckhand_options retry: 0 # straight to the dead set

  def perform = raise(ArgumentError, "the report's source is gone")
end

# A real server, in this process, leading its periodic entries and running
# their ticks' jobs: each tick's history says enqueued, then running, then
# succeeded or failed with the error's class, by Redis' clock; jobs that are
# not ticks leave no history.
class PeriodicOutcomesTest < Minitest::Test
  def setup
    super
    Deckhand.config = new_config(concurrency: 3, heartbeat_interval: 0.1, scheduler_interval: 0.05, timeout: 2, queues: %w[ticks default])
    Deckhand.config.periodic do |cron|
      cron.register("* * * * * *", "TickWorkJob", queue: "ticks", name: "work")
      cron.register("* * * * * *", "TickFailJob", queue: "ticks", name: "fail")
    end
  end

  def history(name) = Deckhand::API.new(Deckhand.config).periodic.find(name)&.history || [] # [] until the leader published its schedule

  def test_each_tick_s_outcome_is_recorded_by_the_server_that_ran_it
    seen = []
    with_server do
      Deckhand::Client.push("class" => "TickWorkJob", "args" => [], "queue" => "default") # not a tick
      wait_for(message: "a tick of work running", timeout: 15) do
        seen |= history("work").map(&:state)
        seen.include?("running")
      end
      wait_for(message: "two ticks of each entry done", timeout: 15) do
        history("work").count { |t| t.state == "succeeded" } >= 2 && history("fail").count { |t| t.state == "failed" } >= 2
      end
    end
    work = history("work").find { |t| t.state == "succeeded" }
    assert_operator work.duration, :>=, 0.45
    assert_operator work.started_at, :>=, work.at, "started after its tick was due"
    assert_in_delta Deckhand.config.store.clock.now, work.updated_at.to_f, 30
    assert_match(/\A\h{24}\z/, work.jid)
    failed = history("fail").select { |t| t.state == "failed" }
    assert_equal ["ArgumentError"], failed.map(&:error).uniq
    dead = redis.call("ZRANGE", "dead", 0, -1).map { |raw| JSON.parse(raw)["jid"] }
    failed.each { |tick| assert_includes dead, tick.jid, "the failed tick's job, in the dead set" }
    assert_equal %w[deckhand:periodic:history:fail deckhand:periodic:history:work], redis.call("KEYS", "deckhand:periodic:history:*").sort
  end
end
