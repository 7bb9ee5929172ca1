# frozen_string_literal: true

require "json"
require_relative "huge_numbers"

module Deckhand
  module Payload
    # Turns the bytes fetched from a queue into a job Hash, or explains why they
    # are not a job. JSON only: no object creation from the data, ever.
    module Decoder
      # Raised with the reason; the processor moves the raw bytes to the dead set.
      class Invalid < StandardError; end

      MAX_NESTING = 100

      # Every number with a fraction or an exponent is read through
      # HugeNumbers, which refuses one too large for a Float; on JRuby,
      # whose json cannot take it, the decoded job is walked (WALK).
      WALK = RUBY_ENGINE == "jruby"
      FLOATS = WALK ? {} : {decimal_class: HugeNumbers}.freeze

      # json before 2.10 (Ruby 3.1 to 3.3 ship 2.6 to 2.7) has no JSON::Coder:
      # the same parse through JSON.parse, which builds an options Hash a call.
      module Parse
        OPTIONS = {max_nesting: MAX_NESTING, create_additions: false, **FLOATS}.freeze

        def self.load(raw) = ::JSON.parse(raw, OPTIONS)
      end

      # Built once: a parse allocates nothing but the job itself.
      CODER = defined?(::JSON::Coder) ? ::JSON::Coder.new(max_nesting: MAX_NESTING, **FLOATS) : Parse

      module_function

      def decode(raw)
        raw = raw.dup.force_encoding(Encoding::UTF_8) unless raw.encoding == Encoding::UTF_8
        raise Invalid, "payload is not valid UTF-8" unless raw.valid_encoding?
        job = begin
          CODER.load(raw) # plain JSON: never creates objects from the data
        rescue JSON::ParserError => e
          raise Invalid, "payload is not valid JSON (#{e.message[0, 120]})"
        rescue HugeNumbers::TooLarge => e
          raise Invalid, HugeNumbers.reason(raw, e.text)
        end
        check!(job)
        raise Invalid, HugeNumbers.reason(raw) if WALK && HugeNumbers.find(job)
        job
      end

      def check!(job)
        raise Invalid, "payload is a JSON #{job.class}, not an object" unless job.is_a?(Hash)
        klass = job["class"]
        raise Invalid, "payload has no \"class\" String" unless klass.is_a?(String) && !klass.empty?
        raise Invalid, "payload \"args\" is not an Array" unless job["args"].is_a?(Array)
        raise Invalid, "payload \"jid\" is not a String" unless job["jid"].is_a?(String)
      end
    end
  end
end
