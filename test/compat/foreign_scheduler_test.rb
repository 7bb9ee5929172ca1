# frozen_string_literal: true

require "test_helper"
require "stringio"
require_relative "compat_helper"

# A mixed fleet whose Sidekiq processes still run sidekiq-cron or
# sidekiq-scheduler: Deckhand's periodic entry of a class they enqueue is
# left to them (said once in the log), so no tick runs twice, and is taken
# over once the last Sidekiq process has gone. Their keys are written here as
# those gems write them; the Sidekiq process is the real gem's.
class ForeignSchedulerTest < Minitest::Test
  include Deckhand::CompatTest

  def test_entries_other_schedulers_enqueue_are_left_to_them_while_sidekiq_runs
    redis.call("SADD", "cron_jobs:default", "cron_job:default:ticker")
    redis.call("HSET", "cron_job:default:ticker", "name", "ticker", "klass", "CronTickJob", "cron", "* * * * * *",
      "status", "enabled", "namespace", "default")
    redis.call("HSET", "schedules", "reports", JSON.generate("class" => "SchedulerTickJob", "every" => "1s"))
    redis.call("HSET", "schedules", "paused", JSON.generate("class" => "PausedTickJob", "every" => "1s"))
    redis.call("HSET", "sidekiq-scheduler:states", "paused", JSON.generate("enabled" => false))
    log = StringIO.new
    config = fast_config
    config.logger = ::Logger.new(log)
    config.periodic do |cron|
      %w[CronTickJob SchedulerTickJob PausedTickJob FreeTickJob].each { |klass| cron.register("* * * * * *", klass, queue: "ticks") }
    end
    with_server(config) do
      Deckhand::SidekiqHarness.server(queues: ["sidekiq-only"]) do
        wait_for(message: "the Sidekiq process record") { Sidekiq::ProcessSet.new.any? { |process| process["version"] == Sidekiq::VERSION } }
        # Before the Sidekiq process registered the ticks were Deckhand's; from the refusals on, none.
        wait_for(message: "the refusals") { log.string.scan("not enqueued by Deckhand").size == 2 }
        left = [ticked("CronTickJob").size, ticked("SchedulerTickJob").size]
        before = [ticked("FreeTickJob").size, ticked("PausedTickJob").size]
        wait_for(message: "two more ticks of the free and the disabled entries") do
          ticked("FreeTickJob").size >= before[0] + 2 && ticked("PausedTickJob").size >= before[1] + 2
        end
        assert_equal left, [ticked("CronTickJob").size, ticked("SchedulerTickJob").size], "enqueued by the other scheduler and by Deckhand"
        skipped = history("CronTickJob").select { |tick| tick["state"] == "skipped" }
        refute_empty skipped, "the ticks left to sidekiq-cron are in the entry's history"
        assert_equal ["sidekiq-cron enqueues it (its entry \"ticker\", in a Sidekiq process)"], skipped.map { |tick| tick["reason"] }.uniq
        @left = left
      end
      wait_for(message: "Deckhand to take the entries over") do
        ticked("CronTickJob").size > @left[0] && ticked("SchedulerTickJob").size > @left[1]
      end
    end
    assert_includes log.string, "periodic CronTickJob (CronTickJob): not enqueued by Deckhand, so that no tick runs twice: " \
      "sidekiq-cron's entry \"ticker\" (cron_job:default:ticker) enqueues CronTickJob too"
    assert_includes log.string, "Sidekiq::Cron::Job.destroy(\"ticker\")"
    assert_includes log.string, "sidekiq-scheduler's entry \"reports\" (schedules reports) enqueues SchedulerTickJob too"
    assert_includes log.string, "periodic CronTickJob (CronTickJob): no other scheduler enqueues it any more; Deckhand enqueues it from now on"
    assert_equal 1, log.string.scan("periodic CronTickJob (CronTickJob): not enqueued").size, "said once"
  end

  private

  def ticked(klass) = jobs_in("ticks").select { |job| job["class"] == klass }

  def history(name) = Deckhand::Store::Scripts::PeriodicHistory.read(Deckhand::RedisHarness.store, [name]).first
end
