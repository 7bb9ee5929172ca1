# frozen_string_literal: true

require_relative "rails_helper"
require "deckhand/server"

# A periodic entry naming an Active Job class pushes it as perform_later
# would: Active Job's wrapper, its serialized arguments, its queue.
class PeriodicActiveJobTest < Minitest::Test
  include Deckhand::RailsTestApp

  WRAPPER = "ActiveJob::QueueAdapters::DeckhandAdapter::JobWrapper"

  def test_a_tick_of_an_active_job_class_is_wrapped_as_perform_later_would
    config = rails_config
    config.periodic { |cron| cron.register("* * * * *", "RailsJobs::GreetJob", args: ["cron"]) }
    builder = Deckhand::Periodic::JobBuilder.new(config)
    job = builder.build(config.periodic["RailsJobs::GreetJob"])
    assert_equal [WRAPPER, "RailsJobs::GreetJob", "mailers"], job.values_at("class", "wrapped", "queue")
    assert_equal ["cron"], ActiveJob::Arguments.deserialize(job["args"].first["arguments"])
    assert_empty jobs_in("mailers"), "building a tick's job pushed it"
    jid = builder.push_now(config.periodic["RailsJobs::GreetJob"])
    assert_equal [jid], jobs_in("mailers").map { |payload| payload["jid"] }
  end
end
