# frozen_string_literal: true

require "test_helper"

class JobTest < Minitest::Test
  class BaseJob
    include Deckhand::Job

    deckhand_options({"queue" => "base", "retry" => 3, "custom" => "x"})
    deckhand_retry_in { |count, _error, _payload| count * 2 }
  end

  class ChildJob < BaseJob
    deckhand_options queue: "child"
    def perform(a, b) = Deckhand::TestJobs.record([jid, a, b])
  end

  def test_options_inherit_and_override
    assert_equal({"retry" => 3, "queue" => "child", "custom" => "x"}, ChildJob.deckhand_options)
    assert_equal "base", BaseJob.deckhand_options["queue"]
    assert_equal 4, ChildJob.deckhand_retry_in.call(2, nil, nil)
  end

  def test_options_are_validated_where_declared
    error = assert_raises(ArgumentError) { Class.new { include Deckhand::Job }.deckhand_options(retry: "yes") }
    assert_includes error.message, "retry"
    assert_raises(ArgumentError) { Class.new { include Deckhand::Job }.deckhand_options(queue: "") }
    assert_raises(ArgumentError) { Class.new { include Deckhand::Job }.deckhand_options(args: [1]) }
  end

  class PlainJob
    include Deckhand::Job
  end

  def test_set_without_a_hash_names_set_and_what_it_takes
    [-> { PlainJob.set(nil) }, -> { PlainJob.set(queue: "a").set("low") }].each do |call|
      error = assert_raises(ArgumentError, &call)
      assert_match(/\Aset takes a Hash of options, like set\(queue: "critical"\); got (nil|"low")\z/, error.message)
    end
  end

  # The push builds its job from the class's options without changing them:
  # a class with none of its own shares the defaults with every other class.
  def test_a_push_leaves_the_options_it_was_built_from_as_they_were
    defaults = Deckhand::Job::Options.defaults.dup
    inherited = ChildJob.deckhand_options
    PlainJob.perform_async(1)
    ChildJob.perform_async(1, 2)
    ChildJob.set(queue: "other").perform_async(3, 4)
    assert_equal defaults, Deckhand::Job::Options.defaults
    assert_equal defaults, PlainJob.deckhand_options
    assert_equal inherited, ChildJob.deckhand_options
    assert_equal [[1], [1, 2], [3, 4]], %w[default child other].map { |q| JSON.parse(Deckhand.config.store.call("LINDEX", Deckhand.config.store.layout.queue(q), 0))["args"] }
  end

  def test_perform_inline_round_trips_through_json
    ChildJob.perform_inline(1, {"k" => [1.5, nil]})
    jid, a, b = Deckhand::TestJobs.runs.first
    assert_match(/\A\h{24}\z/, jid)
    assert_equal 1, a
    assert_equal({"k" => [1.5, nil]}, b)
    assert_raises(Deckhand::InvalidJob) { ChildJob.perform_inline(:a, 1) }
  end

  # A String answers to_f with its leading number: "5 minutes" would be 5 s.
  def test_a_string_interval_or_time_is_refused_at_the_call_with_the_fix
    error = assert_raises(ArgumentError) { ChildJob.perform_in("5 minutes", 1, 2) }
    assert_equal "JobTest::ChildJob.perform_in got the String \"5 minutes\", which would be read as 5.0 seconds: " \
      "give a number of seconds as a Numeric (300) or an ActiveSupport::Duration (5.minutes)", error.message
    assert_match(/perform_at got the String "2026-12-01".*or a Time \(Time.parse\(string\)\)/, assert_raises(ArgumentError) { ChildJob.perform_at("2026-12-01", 1, 2) }.message)
    assert_raises(ArgumentError) { ChildJob.set(queue: "q").perform_in("300", 1, 2) }
    assert_includes error.backtrace_locations.find { |l| !l.path.include?("lib/deckhand") }.path, "job_test.rb", "raised from the call"
    assert_equal 0, redis.call("ZCARD", "schedule"), "nothing scheduled"
  end

  def test_numbers_durations_and_times_schedule_as_before
    require "active_support"
    require "active_support/duration"
    ChildJob.perform_in(300, 1, 2)
    ChildJob.perform_in(1.5, 1, 2)
    ChildJob.perform_in(ActiveSupport::Duration.build(90), 1, 2)
    ChildJob.perform_at(Time.now + 600, 1, 2)
    now = Time.now.to_f
    dues = redis.call("ZRANGE", "schedule", 0, -1, "WITHSCORES").flatten.each_slice(2).map { |_, score| Float(score) - now }
    [1.5, 90, 300, 600].zip(dues) { |want, due| assert_in_delta want, due, 1.0 }
  end

  # How long a job keeps its return value: seconds in the job, as JSON carries them.
  def test_the_result_option_travels_as_seconds_and_a_bad_one_is_refused_with_the_fix
    ChildJob.set(result: {ttl: 90}).perform_async(1, 2)
    ChildJob.set(result: true).perform_async(1, 2)
    ChildJob.set(result: {"ttl" => 1.5}).perform_async(1, 2)
    assert_equal [{"ttl" => 90}, {"ttl" => 86_400}, {"ttl" => 1.5}], jobs_in("child").reverse.map { |job| job["result"] }
    [{ttl: 0}, {ttl: "60"}, 60, "yes"].each do |bad|
      error = assert_raises(ArgumentError) { ChildJob.set(result: bad) }
      assert_includes error.message, "use {ttl: seconds}"
    end
  end
end
