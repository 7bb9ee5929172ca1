# frozen_string_literal: true

require "test_helper"

class ClientTest < Minitest::Test
  class MailerJob
    include Deckhand::Job

    deckhand_options queue: "mailers", retry: 10
  end

  def test_perform_async_writes_sidekiq_layout
    jid = MailerJob.perform_async(42, "hi", {"a" => 1})
    assert_equal ["mailers"], redis.call("SMEMBERS", "queues")
    job = jobs_in("mailers").first
    assert_equal jid, job["jid"]
    assert_equal "ClientTest::MailerJob", job["class"]
    assert_equal [42, "hi", {"a" => 1}], job["args"]
    assert_equal "mailers", job["queue"]
    assert_equal 10, job["retry"]
    assert_kind_of Integer, job["enqueued_at"]
    assert_kind_of Integer, job["created_at"]
  end

  def test_set_overrides_per_push
    MailerJob.set(queue: "critical", retry: false).perform_async(1)
    job = jobs_in("critical").first
    assert_equal false, job["retry"]
    assert_equal 0, redis.call("LLEN", "queue:mailers")
  end

  def test_client_push_with_a_class_takes_the_class_options_under_its_own
    Deckhand::Client.push("class" => MailerJob, "args" => [1])
    Deckhand::Client.push("class" => MailerJob, "args" => [2], "queue" => "critical", "retry" => 3)
    Deckhand::Client.push_bulk("class" => MailerJob, "args" => [[3], [4]])
    mailers = jobs_in("mailers")
    assert_equal [[1, 10], [3, 10], [4, 10]], mailers.map { |job| [job["args"].first, job["retry"]] }.sort
    assert_equal [[2, 3]], jobs_in("critical").map { |job| [job["args"].first, job["retry"]] }
    assert_equal "ClientTest::MailerJob", mailers.first["class"]
    Deckhand::Client.push("class" => "ClientTest::MailerJob", "args" => [5])
    assert_equal [5], jobs_in("default").map { |job| job["args"].first }, "a class by name brings no options (it may live elsewhere)"
  end

  def test_queue_is_fifo_newest_on_the_left
    3.times { |i| RecordJob.perform_async(i) }
    assert_equal [0, 1, 2], redis.call("LRANGE", "queue:default", 0, -1).reverse.map { |raw| JSON.parse(raw)["args"].first }
  end

  def test_perform_in_and_perform_at_schedule
    before = Time.now.to_f
    jid = MailerJob.perform_in(300, 7)
    at = Time.now + 600
    MailerJob.perform_at(at, 8)
    (job, score), (_job2, score2) = zset("schedule")
    assert_equal jid, job["jid"]
    assert_in_delta before + 300, score, 2
    assert_in_delta at.to_f, score2, 0.01
    refute job.key?("at"), "the time is the score only, as Sidekiq stores it"
    refute job.key?("enqueued_at")
    assert_equal 0, redis.call("LLEN", "queue:mailers")
  end

  def test_perform_in_the_past_enqueues_now
    MailerJob.perform_in(-5, 1)
    assert_equal 1, redis.call("LLEN", "queue:mailers")
    assert_equal 0, redis.call("ZCARD", "schedule")
  end

  def test_perform_bulk_in_batches
    jids = RecordJob.perform_bulk(Array.new(2500) { |i| [i] })
    assert_equal 2500, jids.uniq.size
    assert_equal 2500, redis.call("LLEN", "queue:default")
    assert_equal (0...2500).to_a, jobs_in("default").map { |j| j["args"].first }.sort
  end

  def test_push_and_push_bulk_by_class_name
    jid = Deckhand::Client.push("class" => "SomeoneElsesJob", "args" => [1], "queue" => "q")
    assert_equal jid, jobs_in("q").first["jid"]
    jids = Deckhand::Client.push_bulk("class" => "SomeoneElsesJob", "args" => [[1], [2]], "at" => Time.now.to_f + 60)
    assert_equal 2, jids.size
    assert_equal 2, redis.call("ZCARD", "schedule")
  end

  def test_bulk_rejects_bad_input_before_writing_anything
    assert_raises(Deckhand::InvalidJob) { RecordJob.perform_bulk([[1], [:two]]) }
    assert_raises(Deckhand::InvalidJob) { Deckhand::Client.push_bulk("class" => "X", "args" => [1, 2]) }
    assert_raises(Deckhand::InvalidJob) { Deckhand::Client.push_bulk("class" => "X", "args" => [[1]], "at" => [1, 2]) }
    assert_equal 0, redis.call("LLEN", "queue:default")
  end

  def test_oversize_payload_is_refused
    Deckhand.config.max_payload_bytes = 1024
    error = assert_raises(Deckhand::InvalidJob) { RecordJob.perform_async("x" * 2000) }
    assert_includes error.message, "1024-byte limit"
    assert_equal 0, redis.call("LLEN", "queue:default")
  end

  class Stamp
    def call(_klass, payload, _queue, _store)
      payload["stamped"] = true
      yield
    end
  end

  class Veto
    def call(_klass, payload, *) = (payload["args"] == [0]) ? false : yield
  end

  def test_client_middleware_can_change_and_stop_pushes
    Deckhand.config.client_middleware.add(Stamp).add(Veto)
    assert_nil RecordJob.perform_async(0)
    jids = RecordJob.perform_bulk([[0], [1]])
    assert_nil jids.first
    assert jids.last
    assert_equal [[1]], jobs_in("default").map { |j| j["args"] }
    assert jobs_in("default").first["stamped"]
  end

  def test_float_timestamps
    Deckhand.config.timestamps = :float
    RecordJob.perform_async(1)
    assert_kind_of Float, jobs_in("default").first["enqueued_at"]
  end

  def test_unreachable_redis_names_the_url_and_the_fix
    Deckhand.config = new_config(redis: {url: "redis://127.0.0.1:1/0"})
    error = assert_raises(Deckhand::ConnectionError) { RecordJob.perform_async(1) }
    assert_includes error.message, "redis://127.0.0.1:1/0"
    assert_includes error.message, "REDIS_URL"
  end
end
