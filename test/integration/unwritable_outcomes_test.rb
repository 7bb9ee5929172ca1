# frozen_string_literal: true

require "test_helper"

# Numbers JSON cannot carry, and failures whose record JSON cannot write:
# refused at the push, buried as fetched at the decode, retried as fetched
# when a job or its middleware left its payload unwritable. Each outcome is
# written once, and the processor thread lives through all of it.
class UnwritableOutcomesTest < Minitest::Test
  # Notes the thread it ran on.
  class ThreadJob
    include Deckhand::Job

    def perform(label) = Deckhand::TestJobs.record([label, Thread.current])
  end

  # Fails after putting into its own args what JSON cannot write.
  class SpoilsItsArgsJob
    include Deckhand::Job

    def perform(options)
      options["ratio"] = Float::NAN
      options["blob"] = "\xFF\xFE".b
      raise ArgumentError, "spoiled"
    end
  end

  # Fails; NaNMiddleware puts a NaN into its payload.
  class MiddlewareSpoiledJob
    include Deckhand::Job

    def perform = raise(ArgumentError, "failed after the middleware")
  end

  class NaNMiddleware
    def call(_job, payload, _queue)
      payload["score"] = Float::NAN if payload["class"] == MiddlewareSpoiledJob.name
      yield
    end
  end

  # Takes away what its failure could not be recorded with ("backtrace": a
  # number no Array can take) and leaves a NaN instead: the failure is
  # recorded on the job, which JSON cannot write, and not on the job as
  # fetched.
  class SwapMiddleware
    def call(_job, payload, _queue)
      if payload["jid"] == "swapped"
        payload.delete("backtrace")
        payload["score"] = Float::NAN
      end
      yield
    end
  end

  # Fails with a message in UTF-16, ten million characters long.
  class AwkwardMessageJob
    include Deckhand::Job

    def perform = raise(ArgumentError, ("é" * 10_000_000).encode("UTF-16LE"))
  end

  def setup
    super
    @log = StringIO.new
    Deckhand.config = new_config(concurrency: 1, heartbeat_interval: 0.1, timeout: 2)
    Deckhand.config.logger = ::Logger.new(@log)
  end

  def test_a_number_too_large_for_a_float_goes_dead_as_fetched_and_the_thread_lives
    raw = ['{"class":"FailJob","args":[1e400],"jid":"h1","retry":true}',
      %({"class":"FailJob","args":[{"n":[1,-1.5E+400]}],"jid":"h2","retry":true}),
      %({"class":"FailJob","args":[#{"9" * 400}.5],"jid":"h3","retry":true})]
    dead = run_around("the dead entries") do
      redis.call("LPUSH", "queue:default", *raw)
      -> { redis.call("ZCARD", "dead") == raw.size }
    end
    assert_equal raw.sort, dead.map { |entry| entry["raw"].unpack1("m0") }.sort
    assert_equal [["args[0]"], ['args[0]["n"][1]'], ["args[0]"]].sort, dead.map { |entry| entry["error_message"].scan(/at (\S+?)(?: \(|:)/).first }.sort
    dead.each { |entry| assert_includes entry["error_message"], "number too large for a Float" }
    assert_equal 0, redis.call("ZCARD", "retry")
    refute Deckhand::TestJobs.runs.any? { |label, _| label.is_a?(String) && label.start_with?("h") }, "FailJob ran"
  end

  def test_a_failure_whose_payload_cannot_be_written_is_retried_once_as_it_was_fetched
    Deckhand.config.server_middleware.add(NaNMiddleware)
    jids = [SpoilsItsArgsJob.perform_async({"ratio" => 0.5}), MiddlewareSpoiledJob.perform_async, AwkwardMessageJob.perform_async]
    retried = run_around("three retries") { -> { redis.call("ZCARD", "retry") == 3 } }
    assert_equal jids.sort, retried.map { |job| job["jid"] }.sort
    by_class = retried.to_h { |job| [job["class"].split("::").last, job] }
    assert_equal [[{"ratio" => 0.5}], "ArgumentError", 0], by_class["SpoilsItsArgsJob"].values_at("args", "error_class", "retry_count")
    refute by_class["MiddlewareSpoiledJob"].key?("score")
    message = by_class["AwkwardMessageJob"]["error_message"]
    assert_equal ["é" * 10_000, Encoding::UTF_8], [message, message.encoding], "converted to UTF-8 and cut at 10,000 characters"
    assert_equal 0, redis.call("ZCARD", "dead")
    assert_equal 2, @log.string.scan("written as it was fetched, with its failure").size
  end

  # A payload whose failure cannot be recorded at all ("backtrace": a
  # number no Array can take): kept in the dead set as fetched, once.
  def test_a_failure_that_cannot_be_recorded_goes_dead_as_fetched_once
    raw = %({"class":"FailJob","args":["x"],"jid":"b1","retry":true,"backtrace":1#{"0" * 30}})
    dead = run_around("the dead entry") do
      redis.call("LPUSH", "queue:default", raw)
      -> { redis.call("ZCARD", "dead") == 1 }
    end
    entry = dead.first
    assert_equal [raw, "ArgumentError"], [entry["raw"].unpack1("m0"), entry["error_class"]]
    assert_includes entry["error_message"], "its failure could not be recorded (RangeError"
    assert_equal 0, redis.call("ZCARD", "retry")
  end

  # Out of retries and written neither as it stood nor as fetched: buried
  # with its raw bytes, and the final-failure handlers (a batch's, a
  # workflow's) told of its death before.
  def test_a_death_written_with_its_raw_bytes_is_told_to_the_final_failure_handlers_first
    Deckhand.config.server_middleware.add(SwapMiddleware)
    heard = []
    # On the server's thread: through the server's own pool, not the test's one connection.
    Deckhand.config.on_final_failure { |job, _error, outcome| heard << [job["jid"], outcome, Deckhand.config.store.call("ZCARD", "dead")] }
    raw = %({"class":"FailJob","args":["x"],"jid":"swapped","retry":0,"backtrace":1#{"0" * 30}})
    dead = run_around("the dead entry") do
      redis.call("LPUSH", "queue:default", raw)
      -> { redis.call("ZCARD", "dead") == 1 }
    end
    assert_equal [raw, "Deckhand::CorruptPayload"], [dead.first["raw"].unpack1("m0"), dead.first["class"]]
    assert_equal [["swapped", :dead, 0]], heard
  end

  def test_a_retry_rule_that_gives_no_finite_delay_falls_back_to_the_default_backoff
    job_class = Class.new(FailJob) { deckhand_retry_in { |_count, _error, _job| Float::NAN } }
    Object.const_set(:NaNDelayJob, job_class)
    NaNDelayJob.perform_async
    before = Time.now.to_f
    retried = run_around("the retry") { -> { redis.call("ZCARD", "retry") == 1 } }
    assert_equal "NaNDelayJob", retried.first["class"]
    assert_operator zset("retry").first.last, :>=, before + 15 - 0.01, "the default backoff: 15 seconds and more"
  ensure
    Object.send(:remove_const, :NaNDelayJob) if Object.const_defined?(:NaNDelayJob, false)
  end

  def test_a_push_refuses_numbers_json_cannot_carry_naming_where_they_are
    {
      -> { RecordJob.perform_async(1, Float::NAN) } => "RecordJob args[1] is NaN",
      -> { RecordJob.perform_async({"a" => [1, Float::INFINITY]}) } => %(RecordJob args[0]["a"][1] is Infinity),
      -> { RecordJob.perform_bulk([[1], [-Float::INFINITY]]) } => "RecordJob bulk push item 1: args[0] is -Infinity",
      -> { RecordJob.perform_in(Float::INFINITY, 1) } => %("at" is Infinity),
      -> { Deckhand::Client.push("class" => "RecordJob", "args" => [1], "at" => Float::NAN) } => %("at" is NaN),
      -> { Deckhand::Client.push("class" => "RecordJob", "args" => [1], "tags" => [Float::NAN]) } => "RecordJob cannot be written as JSON"
    }.each do |push, message|
      error = assert_raises(Deckhand::InvalidJob, message) { push.call }
      assert_includes error.message, message
      assert_match(/finite|JSON cannot carry/, error.message)
    end
    assert_empty redis.call("KEYS", "*"), "a refused push wrote to Redis"
  end

  private

  # Runs a job on the server's one processor thread, then what the block
  # sets up until the condition it returns holds, then a job again: the
  # entries of the set the condition watched (dead or retry), once the
  # second job ran on the same thread and nothing crashed.
  def run_around(what)
    ThreadJob.perform_async("before")
    entries = nil
    with_server do |launcher|
      wait_for(message: "the first job") { Deckhand::TestJobs.runs.any? { |label, _| label == "before" } }
      condition = yield
      wait_for(message: what, &condition)
      ThreadJob.perform_async("after")
      wait_for(message: "the job after") { Deckhand::TestJobs.runs.any? { |label, _| label == "after" } }
      wait_for(message: "nothing in flight") { inflight_count(launcher.identity).zero? }
      set = (redis.call("ZCARD", "dead") > 0) ? "dead" : "retry"
      entries = zset(set).map(&:first)
    end
    first, second = Deckhand::TestJobs.runs.to_h.values_at("before", "after")
    assert_kind_of Thread, first
    assert_same first, second, "the processor thread was replaced"
    refute_match(/crashed/, @log.string)
    entries
  end
end
