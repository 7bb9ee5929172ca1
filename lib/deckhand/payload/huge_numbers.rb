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
      def try_convert(text)
        value = read(text)
        value.finite? ? value : raise(TooLarge, text)
      end

      # The Float json reads the number `text` as (Infinity beyond a
      # Float's range), without the warning String#to_f and json give when
      # Ruby is verbose about a number that reads as Infinity or, below the
      # least subnormal, as zero: those are told apart by the number's
      # decimal magnitude first, exactly (Rational) only at the two edges.
      def read(text)
        return text.to_f unless wide?(text)
        sign, digits, magnitude = decimal(text)
        return text.to_f if digits.nil? # zero
        if magnitude > MAX_MAGNITUDE || (magnitude == MAX_MAGNITUDE && exact(digits, magnitude) >= OVERFLOW)
          sign * Float::INFINITY
        elsif magnitude < MIN_MAGNITUDE || (magnitude == MIN_MAGNITUDE && exact(digits, magnitude) <= UNDERFLOW)
          sign * 0.0
        else
          text.to_f
        end
      end

      # Float::MAX is 1.8e308, the least subnormal 4.9e-324: a number
      # d.ddd × 10^m reads as Infinity when m > 308, as zero when m < -324,
      # and is compared exactly at those two magnitudes.
      MAX_MAGNITUDE = 308
      MIN_MAGNITUDE = -324
      # Halfway from Float::MAX to the next power of two rounds up (MAX's
      # last bit is odd); halfway to the least subnormal rounds to zero.
      OVERFLOW = Rational(2**1024 - 2**970)
      UNDERFLOW = Rational(1, 2**1075)
      NUMBER = /\A(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\z/

      # [sign, significant digits, m] of a number d.ddd × 10^m written as
      # `text`; digits are nil for zero.
      def decimal(text)
        match = NUMBER.match(text) or raise ArgumentError, "not a JSON number: #{text[0, 40]}"
        sign, whole, fraction, exponent = match.captures
        all = whole + fraction.to_s
        first = all.index(/[1-9]/) or return [1, nil, 0]
        [(sign == "-") ? -1 : 1, all[first..].sub(/0+\z/, ""), whole.size - 1 - first + exponent.to_i]
      end

      # The exact value of d.ddd × 10^m, with d.ddd `digits`.
      def exact(digits, magnitude) = Rational(digits.to_i) * Rational(10)**(magnitude - digits.size + 1)

      # Whether `text` could be out of a Float's range: only a number with
      # an exponent, or with 300 digits and more, can be.
      def wide?(text) = text.bytesize >= 300 || text.include?("e") || text.include?("E")

      # json's parse of `raw` with numbers beyond a Float's range read as
      # Infinity, silently: for reading back what was refused or stored.
      # JRuby's json takes no decimal_class that answers a Float.
      def parse(raw, **options)
        return ::JSON.parse(raw, **options) if RUBY_ENGINE == "jruby"
        ::JSON.parse(raw, decimal_class: Lenient, **options)
      end

      # The decimal_class of #parse.
      module Lenient
        def self.try_convert(text) = HugeNumbers.read(text)
      end

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
          find(parse(raw, max_nesting: Decoder::MAX_NESTING)) # no additions: JSON.parse makes none unless asked
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
