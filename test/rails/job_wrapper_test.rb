# frozen_string_literal: true

require_relative "rails_helper"

# The Deckhand job that runs an Active Job job (DeckhandAdapter::JobWrapper):
# Active Job sees the Deckhand jid as provider_job_id, the job's data comes
# back exactly as it went in (what a retry or the dead set writes), and the
# wrapper costs next to nothing on top of Active Job's own execute.
class JobWrapperTest < Minitest::Test
  include Deckhand::RailsTestApp

  def setup
    super
    RailsJobs::SeenJob::SEEN.clear
  end

  # What the server hands the wrapper: the serialized job as JSON gave it back.
  def wire_data(job) = JSON.parse(JSON.generate(job.serialize))

  def wrapper(jid = "a1b2c3d4e5f6a1b2c3d4e5f6") = ActiveJob::QueueAdapters::DeckhandAdapter::JobWrapper.new.tap { |w| w.jid = jid }

  def test_active_job_sees_the_jid_and_the_data_is_left_as_it_came
    data = wire_data(RailsJobs::SeenJob.new("ada", {"n" => 1}))
    before = JSON.generate(data)
    wrapper.perform(data)
    assert_equal [["a1b2c3d4e5f6a1b2c3d4e5f6", ["ada", {"n" => 1}]]], [RailsJobs::SeenJob::SEEN.pop]
    assert_equal before, JSON.generate(data)
  end

  def test_a_failing_job_leaves_its_data_as_it_came
    data = wire_data(RailsJobs::BrokenJob.new("x", [1, 2]))
    before = JSON.generate(data)
    assert_raises(RailsJobs::Doomed) { wrapper.perform(data) }
    assert_equal before, JSON.generate(data)
  end

  # Data from an Active Job older than 7.1 has no provider_job_id key.
  def test_data_without_a_provider_job_id_key_gets_none_added
    data = wire_data(RailsJobs::SeenJob.new("old")).tap { |d| d.delete("provider_job_id") }
    before = JSON.generate(data)
    wrapper.perform(data)
    assert_equal "a1b2c3d4e5f6a1b2c3d4e5f6", RailsJobs::SeenJob::SEEN.pop.first
    assert_equal before, JSON.generate(data)
    refute data.key?("provider_job_id")
  end

  # Through a real server: the retry holds the args the client pushed.
  def test_a_retried_job_keeps_the_args_it_was_pushed_with
    job = RailsJobs::BrokenJob.new("keep", {"me" => [1, 2.5, nil]})
    ActiveJob.perform_all_later([job])
    pushed = jobs_in("default").first
    with_server(rails_config) { wait_for(message: "the retry") { redis.call("ZCARD", "retry") == 1 } }
    retried, = zset("retry").first
    assert_equal JSON.generate(pushed["args"]), JSON.generate(retried["args"])
    assert_nil retried["args"].first["provider_job_id"]
  end

  # Active Job builds the class its data names: the wrapper refuses one
  # that is no Active Job first, and a server buries the payload as fetched.
  def test_data_naming_a_class_that_is_no_active_job_is_refused_before_it_is_built
    data = wire_data(RailsJobs::SeenJob.new("x")).merge("job_class" => "JobWrapperTest::Stranger")
    error = assert_raises(Deckhand::NotAJobClass) { wrapper.perform(data) }
    assert_match(/\AJobWrapperTest::Stranger is not an Active Job class/, error.message)
    raw = JSON.generate("class" => "ActiveJob::QueueAdapters::DeckhandAdapter::JobWrapper", "args" => [data], "jid" => "s1")
    redis.call("LPUSH", "queue:default", raw)
    with_server(rails_config) { wait_for(message: "the dead entry") { redis.call("ZCARD", "dead") == 1 } }
    entry = zset("dead").first.first
    assert_equal [raw, "Deckhand::NotAJobClass"], [entry["raw"].unpack1("m0"), entry["error_class"]]
    assert_empty Stranger.built
  end

  # A plain class with what Active Job would call on it.
  class Stranger
    @built = []

    class << self
      attr_reader :built
    end

    def initialize = Stranger.built << :initialize

    def deserialize(_data) = nil

    def perform_now = Stranger.built << :perform_now
  end

  # Allocation guard: counted, not timed. Beyond what ActiveJob::Base.execute
  # allocates for the same data, the wrapper adds its own instance and no
  # more (a copy of the data would add 3). The smallest of several rounds,
  # so an allocation by another thread cannot fail it.
  def test_the_wrapper_allocates_next_to_nothing_beyond_active_jobs_execute
    skip_on_jruby("the JVM counts no allocated objects (GC.stat(:total_allocated_objects))")
    data = wire_data(RailsJobs::SeenJob.new("bench", 1, {"id" => 1, "tag" => "bench"}))
    own = fewest_allocations { ActiveJob::Base.execute(data.dup) }
    ours = fewest_allocations { wrapper.perform(data.dup) }
    assert_operator ours - own, :<=, 2, "the wrapper allocated #{ours} objects a job, Active Job alone #{own}"
  ensure
    RailsJobs::SeenJob::SEEN.clear
  end

  def fewest_allocations(runs: 20, rounds: 5, &block)
    runs.times(&block) # warm: caches, lazy constants
    Array.new(rounds) do
      before = GC.stat(:total_allocated_objects)
      runs.times(&block)
      (GC.stat(:total_allocated_objects) - before).fdiv(runs)
    end.min
  end
end
