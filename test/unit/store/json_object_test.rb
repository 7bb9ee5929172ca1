# frozen_string_literal: true

require "test_helper"

# Values read from Redis are taken as JSON objects only when they are one: a
# record another tool wrote, or a hand in redis-cli, reads as absent.
class JsonObjectTest < Minitest::Test
  JsonObject = Deckhand::Store::JsonObject

  def setup = nil # no Redis needed

  def test_a_json_object_reads_as_its_hash
    assert_equal({"jid" => "ab12", "grace" => 5}, JsonObject.parse('{"jid":"ab12","grace":5}'))
  end

  def test_anything_else_reads_as_nil
    [nil, "", "not json", "[1, 2]", "12", "null", "\"text\"", "{\"open\":"].each do |raw|
      assert_nil JsonObject.parse(raw), "#{raw.inspect} is no JSON object"
    end
  end

  def test_a_record_is_the_object_or_an_empty_one
    assert_equal({"jid" => "ab12"}, JsonObject.record('{"jid":"ab12"}'))
    [nil, "[1, 2]", "not json"].each { |raw| assert_equal({}, JsonObject.record(raw), "#{raw.inspect} reads as an empty record") }
  end
end
