# frozen_string_literal: true

require "json"

module Deckhand
  module Payload
    # Numbers too large for a Float. JSON allows any number; a Float stops
    # near 1.8e308, and beyond it the parser hands back Infinity, which no
    # JSON writer takes back: the job would be given it as an argument, and
    # writing the job's retry or death would fail. The decoder refuses such
    # a payload.
    #
    #   JSON::Coder.new(decimal_class: HugeNumbers).load("[1.5]")   # => [1.5]
    #   JSON::Coder.new(decimal_class: HugeNumbers).load("[1e400]") # raises HugeNumbers::TooLarge
    #   HugeNumbers.find({"args" => [1, {"x" => Float::INFINITY}]})  # => 'args[1]["x"]'
    #
    # How none is missed, at no cost to most jobs: json reads a number with
    # a fraction or an exponent through its decimal_class, when it has one
    # (`try_convert`, here), and only those: an integer of any length is an
    # exact Integer, never a Float. So every number that could read as
    # Infinity comes through try_convert, which reads it as json would
    # (String#to_f and json both round to the nearest Float) and raises on
    # one that is not finite. A payload without such numbers (Deckhand's own
    # timestamps are integers) costs nothing more to decode; each number
    # that has a fraction or an exponent costs a call, 0.12 to 0.4 µs on
    # Ruby 3.1 and 3.3 (drop-in mode's two Float timestamps: +0.4 to 0.8 µs
    # on a decode of about 1.8 µs; 1,000 Floats: six to eight times the
    # decode's time), measured with bench/decode_cost.rb. Looking at every
    # job's bytes first instead (a regular expression and a count) costs
    # 0.6 µs on the smallest job and 2 µs on an Active Job one, and walking
    # every decoded job costs more.
    #
    # JRuby's json builds a decimal_class with `new`, which cannot answer a
    # Float: there the decoder walks the decoded job instead (`find`).
    module HugeNumbers
      # Raised out of the parse, naming the number as it was written.
      class TooLarge < StandardError
        attr_reader :text

        def initialize(text)
          @text = text
          super("#{text[0, 40]}#{"..." if text.size > 40} is too large for a Float")
        end
      end

      module_function

      # json's decimal_class hook: the Float `text` reads as, or TooLarge.
      # When Ruby is verbose, String#to_f warns of a number out of range
      # from this file; json, which reads it the same, warns from its own.
      def try_convert(text)
        value = ($VERBOSE && wide?(text)) ? ::JSON.parse(text) : text.to_f
        value.finite? ? value : raise(TooLarge, text)
      end

      # Whether `text` could be out of a Float's range: only a number with
      # an exponent, or with 300 digits and more, can be.
      def wide?(text) = text.bytesize >= 300 || text.include?("e") || text.include?("E")

      # Where the first number that is not finite sits in the job Hash, as
      # a path (`args[0]["x"]`), or nil.
      def find(job)
        job.each { |key, value| (rest = below(value)) and return "#{key}#{rest}" }
        nil
      end

      # The rest of the path to a number that is not finite, from `value`
      # ("" when it is one), or nil. Strings are built on the way back only.
      def below(value)
        case value
        when Float then value.finite? ? nil : ""
        when Array
          value.each_with_index { |item, i| (rest = below(item)) and return "[#{i}]#{rest}" }
          nil
        when Hash
          value.each { |key, item| (rest = below(item)) and return "[#{key.inspect}]#{rest}" }
          nil
        end
      end

      # The decoder's reason for refusing `raw`, naming where the number
      # sits (found by reading `raw` again, without the hook) and the fix.
      def reason(raw, text = nil)
        path = begin
          find(::JSON.parse(raw, max_nesting: Decoder::MAX_NESTING)) # no additions: JSON.parse makes none unless asked
        rescue JSON::ParserError
          nil
        end
        where = [path && " at #{path}", text && " (#{text[0, 40]}#{"..." if text.size > 40})"].join
        "payload holds a number too large for a Float#{where}: beyond 1.8e308 it reads as Infinity, which no job " \
          "should be given and JSON cannot write back; send such a number as a String"
      end
    end
  end
end
