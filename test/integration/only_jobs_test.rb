# frozen_string_literal: true

require "test_helper"
require "deckhand/batch"

# A plain service object with `new` and `perform`, as applications have
# many: a payload naming it must never build it, let alone run it.
class Canary
  @built = Queue.new

  class << self
    attr_reader :built
  end

  def initialize = Canary.built << :initialize

  def perform(*) = Canary.built << :perform
end

# Deckhand's own jobs and job classes keep running while other classes are refused.
class OnlyJobsTest < Minitest::Test
  RAW = {
    "a plain class" => '{"class":"Canary","args":[1],"jid":"c1"}',
    "a module" => '{"class":"Kernel","args":[],"jid":"c2"}',
    "a constant" => '{"class":"Deckhand::VERSION","args":[],"jid":"c3"}',
    # What the dashboard's "retry" of a corrupt entry pushes.
    "an error class" => '{"class":"Deckhand::CorruptPayload","args":[],"jid":"c4"}'
  }.freeze

  def setup
    super
    Canary.built.clear
    @log = StringIO.new
    Deckhand.config = new_config(concurrency: 2, heartbeat_interval: 0.1, timeout: 2)
    Deckhand.config.logger = ::Logger.new(@log)
  end

  def test_a_payload_naming_a_class_that_is_no_job_goes_dead_as_it_was_fetched_and_is_never_built
    redis.call("LPUSH", "queue:default", *RAW.values)
    jid = RecordJob.perform_async("after")
    with_server do |launcher|
      wait_for(message: "the job after them") { Deckhand::TestJobs.runs.any? { |j, _| j == jid } }
      wait_for(message: "#{RAW.size} dead entries") { redis.call("ZCARD", "dead") == RAW.size }
      wait_for(message: "nothing in flight") { inflight_count(launcher.identity).zero? }
    end
    assert_empty Canary.built, "Canary was built or run"
    dead = zset("dead").map(&:first).to_h { |entry| [entry["raw"].unpack1("m0"), entry] }
    RAW.each do |what, raw|
      entry = dead.fetch(raw) { flunk("#{what}: no dead entry keeps its exact bytes") }
      assert_equal "Deckhand::NotAJobClass", entry["error_class"], what
      assert_equal "default", entry["queue"], what
      assert_includes entry["error_message"], "include Deckhand::Job (or Sidekiq::Job in drop-in mode)", what
    end
    assert_match(/\ACanary is not a job class: /, dead.fetch(RAW["a plain class"])["error_message"])
    assert_match(/\AKernel is a Module, not a job class: /, dead.fetch(RAW["a module"])["error_message"])
    assert_equal 0, redis.call("ZCARD", "retry"), "refused, not retried"
    assert_includes @log.string, "Canary is not a job class"
    refute_match(/crashed/, @log.string)
  end

  def test_a_huge_class_name_is_cut_short_in_the_error
    name = "Canary#{"X" * 10_000}"
    raw = JSON.generate("class" => name, "args" => [], "jid" => "c5")
    Object.const_set(name, Canary)
    redis.call("LPUSH", "queue:default", raw)
    with_server { wait_for(message: "the dead entry") { redis.call("ZCARD", "dead") == 1 } }
    entry = zset("dead").first.first
    assert_equal raw, entry["raw"].unpack1("m0")
    assert_operator entry["error_message"].size, :<, 500
    assert_empty Canary.built
  ensure
    Object.send(:remove_const, name) if Object.const_defined?(name, false)
  end

  def test_job_classes_and_deckhands_own_jobs_still_run
    done = Queue.new
    Deckhand::Batch.install(Deckhand.config)
    batch = Deckhand::Batch.new
    batch.on(:success, "OnlyJobsTest::Callbacks", "done" => "yes")
    Callbacks.done = done
    batch.jobs { RecordJob.perform_async("in the batch") }
    with_server { wait_for(message: "the batch's success callback") { !done.empty? } }
    assert_equal({"done" => "yes"}, done.pop)
    assert_equal [["in the batch"]], Deckhand::TestJobs.runs.map(&:last)
    assert_equal 0, redis.call("ZCARD", "dead")
  end

  # A batch's success callback target: a plain class, as Sidekiq's are.
  class Callbacks
    class << self
      attr_accessor :done
    end

    def on_success(_status, options) = Callbacks.done << options
  end
end
