# frozen_string_literal: true

require_relative "e2e_helper"

# Whatever lands in a queue, the process keeps every byte and keeps working.
class CorruptPayloadTest < Minitest::Test
  include Deckhand::E2EHelpers

  CORRUPT = {
    "invalid UTF-8" => "{\"class\":\"E2E::CountJob\",\"args\":[\"\xFF\xFE\"],\"jid\":\"0123456789abcdef01234567\"}".b,
    "truncated JSON" => '{"class":"E2E::CountJob","args":[1],"jid":"0123',
    "a JSON array" => '["E2E::CountJob",[1]]',
    "args not an array" => '{"class":"E2E::CountJob","args":{"n":1},"jid":"0123456789abcdef01234567"}',
    "a json_class object" => '{"json_class":"OpenStruct","table":{"class":"E2E::CountJob"}}'
  }.freeze

  REASONS = {
    "invalid UTF-8" => "not valid UTF-8",
    "truncated JSON" => "not valid JSON",
    "a JSON array" => "a JSON Array, not an object",
    "args not an array" => "\"args\" is not an Array",
    "a json_class object" => "no \"class\" String"
  }.freeze

  def test_corrupt_payloads_go_to_dead_with_their_raw_bytes_and_work_goes_on
    cli = boot("-c", "2")
    CORRUPT.each_value { |raw| redis.call("LPUSH", "queue:default", raw) }
    E2E::CountJob.perform_async(42)
    wait_for(message: "the valid job after the corrupt ones") { counts == {42 => 1} }
    dead = wait_for(message: "five dead entries") { (entries = zset("dead").map(&:first)).size == 5 && entries }

    by_raw = dead.to_h { |entry| [entry["raw"].unpack1("m0"), entry] }
    CORRUPT.each do |name, raw|
      entry = by_raw[raw.b] or flunk("#{name}: no dead entry holds its exact bytes")
      assert_equal "Deckhand::CorruptPayload", entry["error_class"], name
      assert_includes entry["error_message"], REASONS.fetch(name), name
      assert_equal "default", entry["queue"], name
    end
    assert_empty jobs_in("default")
    assert_equal 0, inflight_count(cli.identity)
    assert cli.alive?
  end

  # What anyone who can write to Redis could push: a class of the
  # application that is no job, and a number JSON reads as Infinity into a
  # job that fails (its retry could not be written). Both are kept as they
  # were written; nothing is built, no thread dies.
  HOSTILE = {
    "a plain class" => ['{"class":"E2E::Canary","args":[1],"jid":"c1"}', "Deckhand::NotAJobClass",
      "E2E::Canary is not a job class: include Deckhand::Job"],
    "a number too large for a Float" => ['{"class":"E2E::NoSuchJob","args":[1e400],"jid":"c2","retry":true}',
      "Deckhand::CorruptPayload", "number too large for a Float at args[0] (1e400)"]
  }.freeze

  def test_a_class_that_is_no_job_and_a_number_too_large_go_dead_as_written_and_nothing_runs_them
    cli = boot("-c", "1")
    HOSTILE.each_value { |(raw, _, _)| redis.call("LPUSH", "queue:default", raw) }
    E2E::CountJob.perform_async(7)
    wait_for(message: "the job after them") { counts == {7 => 1} }
    dead = wait_for(message: "two dead entries") { (entries = zset("dead").map(&:first)).size == 2 && entries }
    by_raw = dead.to_h { |entry| [entry["raw"].unpack1("m0"), entry] }
    HOSTILE.each do |name, (raw, error_class, message)|
      entry = by_raw[raw] or flunk("#{name}: no dead entry holds its exact bytes")
      assert_equal error_class, entry["error_class"], name
      assert_includes entry["error_message"], message, name
    end
    assert_empty redis.call("LRANGE", "e2e:built", 0, -1), "Canary was built or run"
    assert_equal 0, redis.call("ZCARD", "retry")
    assert cli.alive?
    refute_match(/crashed/, cli.output)
  end
end
