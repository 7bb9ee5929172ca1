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
end
