# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

# A debounced or deduplicated job seen from the data API: its key, its wait
# or window, and which push of the key its record names now.
class CollapseRecordTest < Minitest::Test
  def api = Deckhand::API.new

  def setup
    super
    @pusher = Deckhand::Client.pusher
    Deckhand::Client.pusher = nil # straight to Redis, whatever an earlier test left
  end

  def teardown
    Deckhand::Client.pusher = @pusher
    super
  end

  def test_a_debounced_job_names_its_key_wait_and_the_last_push
    first = RecordJob.set(debounce: {key: "doc-1", wait: 30}).perform_async(1)
    record = api.collapse(api.scheduled.each_entry.first)
    assert_equal ["debounce", "doc-1", 30, first, true], [record.mode, record.key, record.seconds, record.latest, record.latest?]
    assert_operator record.ttl_ms, :>, 30_000
    job = JSON.parse(redis.call("ZRANGE", "schedule", 0, -1).first)
    last = RecordJob.set(debounce: {key: "doc-1", wait: 30}).perform_async(2)
    stale = api.collapse(job)
    assert_equal last, stale.latest, "a later push of the key took the record"
    refute stale.latest?
  end

  def test_a_deduplicated_job_names_its_window_and_conflict_and_an_expired_record_none
    RecordJob.set(dedupe: {ttl: 60, on_conflict: :extend}).perform_async(1)
    record = api.collapse(api.queue("default").jobs.first)
    assert_equal ["dedupe", nil, 60, "extend", true], [record.mode, record.key, record.seconds, record.on_conflict, record.latest?]
    redis.call("DEL", record.redis_key)
    expired = api.collapse(api.queue("default").jobs.first)
    assert_nil expired.latest
    assert_nil expired.ttl_ms
    assert_nil api.collapse(JSON.parse(JSON.generate("class" => "RecordJob", "args" => [])))
  end
end
