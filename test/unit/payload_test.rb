# frozen_string_literal: true

require "test_helper"

class PayloadTest < Minitest::Test
  def normalize(item) = Deckhand::Payload.normalize(item)

  def test_normalize_fills_sidekiq_fields
    job = normalize("class" => RecordJob, "args" => [1, "two"])
    assert_equal "RecordJob", job["class"]
    assert_equal [1, "two"], job["args"]
    assert_equal "default", job["queue"]
    assert_equal true, job["retry"]
    assert_match(/\A\h{24}\z/, job["jid"])
    assert_kind_of Integer, job["created_at"]
    assert_in_delta Time.now.to_f * 1000, job["created_at"], 5_000
  end

  def test_float_timestamps_for_sidekiq_7_fleets
    job = Deckhand::Payload.normalize({"class" => "X", "args" => []}, timestamps: :float)
    assert_kind_of Float, job["created_at"]
    assert_in_delta Time.now.to_f, job["created_at"], 5
  end

  def test_a_host_clock_stands_in_for_the_system_clock_where_no_fleet_clock_is_given
    Deckhand::Payload.host_clock = -> { 1_700_000_000.25 }
    assert_equal [1_700_000_000_250, 1_700_000_000.25], [Deckhand::Payload.now(:millis), Deckhand::Payload.now(:float)]
    fleet = Struct.new(:now, :now_ms).new(5.0, 5000)
    assert_equal 5000, Deckhand::Payload.now(:millis, clock: fleet), "the fleet's clock still wins"
  ensure
    Deckhand::Payload.host_clock = nil
  end

  def test_reads_both_timestamp_encodings
    assert_equal Time.at(1_732_000_000, 123, :millisecond), Deckhand::Payload.to_time(1_732_000_000_123)
    assert_in_delta 1_732_000_000.5, Deckhand::Payload.to_time(1_732_000_000.5).to_f, 0.001
    assert_in_delta 1_732_000_000.123, Deckhand::Payload.to_epoch(1_732_000_000_123), 0.0001
    assert_equal 1_732_000_000.5, Deckhand::Payload.to_epoch(1_732_000_000.5)
    assert_nil Deckhand::Payload.to_epoch(nil)
  end

  def test_rejects_symbols_with_the_fix
    error = assert_raises(Deckhand::InvalidJob) { normalize("class" => "X", "args" => [:pending]) }
    assert_kind_of Deckhand::Error, error
    assert_includes error.message, "args[0]"
    assert_includes error.message, "\"pending\""
  end

  def test_rejects_symbol_keys_deep_inside
    error = assert_raises(Deckhand::InvalidJob) { normalize("class" => "X", "args" => [{"a" => [{b: 1}]}]) }
    assert_includes error.message, "args[0][\"a\"][0]"
    assert_includes error.message, "String keys"
  end

  def test_rejects_time_and_objects
    assert_includes assert_raises(Deckhand::InvalidJob) { normalize("class" => "X", "args" => [Time.now]) }.message, "to_i"
    assert_includes assert_raises(Deckhand::InvalidJob) { normalize("class" => "X", "args" => [Object.new]) }.message, "pass an id"
    assert_includes assert_raises(Deckhand::InvalidJob) { normalize("class" => "X", "args" => [Float::NAN]) }.message, "finite"
  end

  def test_rejects_invalid_utf8_strings
    error = assert_raises(Deckhand::InvalidJob) { normalize("class" => "X", "args" => ["\xff\xfe".b]) }
    assert_includes error.message, "Base64"
  end

  def test_rejects_empty_queue_and_missing_class
    assert_includes assert_raises(Deckhand::InvalidJob) { normalize("class" => "X", "queue" => "") }.message, "queue name"
    assert_includes assert_raises(Deckhand::InvalidJob) { normalize("args" => []) }.message, "job class"
    assert_includes assert_raises(Deckhand::InvalidJob) { normalize("class" => "X", "args" => 1) }.message, "Array"
  end

  def test_encode_enforces_size_limit
    job = normalize("class" => "X", "args" => ["a" * 2000])
    error = assert_raises(Deckhand::InvalidJob) { Deckhand::Payload.encode(job, max_bytes: 1000) }
    assert_includes error.message, "max_payload_bytes"
    assert_equal job, JSON.parse(Deckhand::Payload.encode(job, max_bytes: 10_000))
  end

  def test_decode_accepts_sidekiq_jobs
    raw = '{"class":"HardJob","args":[1,{"a":"b"}],"jid":"abc","queue":"default","enqueued_at":1732000000.25}'
    job = Deckhand::Payload.decode(raw)
    assert_equal [1, {"a" => "b"}], job["args"]
  end

  def test_decode_explains_what_is_wrong
    {
      "\xff{}".b => "UTF-8",
      '{"class":"X","args":[1' => "not valid JSON",
      "[1,2]" => "not an object",
      '{"args":[]}' => "class",
      '{"class":"X","args":{}}' => "args",
      '{"class":"X","args":[]}' => "jid",
      "#{"[" * 200}#{"]" * 200}" => "not valid JSON"
    }.each do |raw, reason|
      error = assert_raises(Deckhand::Payload::Decoder::Invalid, raw[0, 20]) { Deckhand::Payload.decode(raw) }
      assert_includes error.message, reason
    end
  end

  def test_decode_never_builds_objects
    raw = '{"class":"X","args":[{"json_class":"OpenStruct","table":{}}],"jid":"a"}'
    assert_equal({"json_class" => "OpenStruct", "table" => {}}, Deckhand::Payload.decode(raw)["args"].first)
  end

  def test_backtrace_round_trip_in_sidekiq_format
    lines = ["app/jobs/x.rb:3:in `perform'", "lib/y.rb:9"]
    packed = Deckhand::Payload::Backtrace.compress(lines)
    assert_equal lines, JSON.parse(Zlib::Inflate.inflate(packed.unpack1("m0")))
    assert_equal lines, Deckhand::Payload::Backtrace.expand(packed)
    assert_equal lines, Deckhand::Payload::Backtrace.expand(lines)
    assert_equal [], Deckhand::Payload::Backtrace.expand("not base64 zlib")
  end
end
