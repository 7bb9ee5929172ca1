# frozen_string_literal: true

require "json"

module Deckhand
  class Store
    # A value read from Redis taken as a JSON object, or nil: for a missing
    # value, JSON of another type (an array, a number, null) or bytes that
    # are not JSON at all. What Redis holds is read, never trusted: a record
    # another tool or a hand in redis-cli wrote reads as absent, and the
    # listing or the sweep reading it goes on, instead of raising halfway.
    #
    #   JsonObject.parse('{"jid":"ab12"}')   # => {"jid" => "ab12"}
    #   JsonObject.parse("[1, 2]")           # => nil
    #   JsonObject.parse("not json")         # => nil
    #   JsonObject.record("not json")        # => {}: for a reader that wants an empty record
    module JsonObject # :nodoc:
      module_function

      def parse(raw)
        return nil if raw.nil?
        value = JSON.parse(raw)
        value.is_a?(Hash) ? value : nil
      rescue JSON::ParserError
        nil
      end

      # The JSON object stored, or an empty one for anything else.
      def record(raw) = parse(raw) || {}
    end
  end
end
