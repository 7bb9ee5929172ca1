# frozen_string_literal: true

require "test_helper"

# A JSON number too large for a Float reads as Infinity: the decoder refuses
# the payload, naming where the number sits, and reads every other number
# exactly as json does.
class PayloadHugeNumbersTest < Minitest::Test
  HugeNumbers = Deckhand::Payload::HugeNumbers

  def payload(args) = %({"class":"X","args":#{args},"jid":"b4a577edbccf1d805744efa9"})

  def refused(raw) = assert_raises(Deckhand::Payload::Decoder::Invalid) { Deckhand::Payload.decode(raw) }.message

  # json's own parse, for reference: it warns of each Float out of range
  # when Ruby is verbose (the suite is).
  def plain_parse(raw) = with_verbose(nil) { JSON.parse(raw) }

  def with_verbose(level)
    verbose = $VERBOSE
    $VERBOSE = level
    yield
  ensure
    $VERBOSE = verbose
  end

  # Where the number sits, and on MRI the number as written: JRuby's json
  # reads the payload whole before the decoder can look (HugeNumbers).
  def shown(where, literal) = (RUBY_ENGINE == "jruby") ? where : "#{where} (#{literal})"

  def test_a_number_too_large_for_a_float_is_refused_with_where_it_sits
    {
      "[1e400]" => ["args[0]", "1e400"],
      "[1, 2.5, -1E+0400]" => ["args[2]", "-1E+0400"],
      %([{"a":[1,{"b":1.5e309}]}]) => [%(args[0]["a"][1]["b"]), "1.5e309"],
      "[#{"9" * 400}.5]" => ["args[0]", "#{"9" * 40}..."],
      "[#{"1" * 300}e10]" => ["args[0]", "#{"1" * 40}..."]
    }.each do |args, (where, literal)|
      message = refused(payload(args))
      assert_includes message, "number too large for a Float at #{shown(where, literal)}:", args[0, 40]
      assert_includes message, "send such a number as a String", args[0, 40]
    end
    assert_includes refused(%({"class":"X","args":[],"jid":"a","created_at":1e999})), "at #{shown("created_at", "1e999")}:"
  end

  # Refusing, and reading back what was refused, say nothing on stderr,
  # verbose or not: json alone warns of each such number on MRI.
  def test_refusing_and_reading_back_a_huge_number_warns_of_nothing
    raw = payload("[#{"9" * 400}.5, 1e400, -1e-400, 2.4703282292062327e-324]")
    assert_output(nil, /out of range/) { with_verbose(true) { JSON.parse(raw) } } unless RUBY_ENGINE == "jruby"
    [true, false].each do |verbose|
      assert_silent do
        with_verbose(verbose) do
          refused(raw)
          args = Deckhand::Payload::HugeNumbers.parse(raw)["args"]
          assert_equal [Float::INFINITY, Float::INFINITY], args.first(2)
          assert_equal [-0.0, 0.0], args.last(2) unless RUBY_ENGINE == "jruby" # JRuby's json reads them as Java does
        end
      end
    end
  end

  def test_large_numbers_a_float_holds_and_integers_of_any_length_pass
    args = Deckhand::Payload.decode(payload("[1.7976931348623157e308, 1e-400, -2.5e-320, 1#{"0" * 400}]"))["args"]
    assert_equal [1.7976931348623157e+308, 0.0, -2.5e-320, 10**400], args
    assert_equal ["1e400", "e999,"], Deckhand::Payload.decode(payload(%(["1e400", "e999,"])))["args"], "strings are only strings"
  end

  # Every number with a fraction or an exponent goes through the hook, so
  # the decoder refuses exactly the payloads whose numbers json alone reads
  # as Infinity, and reads every other number as json alone does, bit for
  # bit, verbose or not: mantissas of 1 to 320 digits, with and without a
  # fraction, exponents of every size, sign, case and leading zeros.
  def test_the_decoder_refuses_exactly_what_reads_as_infinity_and_reads_the_rest_as_json_does
    random = Random.new(20_261_128)
    counts = Hash.new(0)
    4_000.times do |i|
      literal = random_literal(random)
      raw = payload(random_place(random, literal))
      plain = plain_parse(raw)
      # Verbose as in the suite (json warns of the numbers it reads out of
      # range: kept out of the test's output; ours would raise), or not, as
      # in production.
      with_verbose(i.even?) { capture_io { decide(counts, raw, plain, literal) } }
    end
    assert_operator counts[:refused], :>, 500, "too few literals read as Infinity to prove anything"
    assert_operator counts[:read], :>, 500, "too few finite literals to prove anything"
  end

  def decide(counts, raw, plain, literal)
    if HugeNumbers.find(plain)
      counts[:refused] += 1
      assert_raises(Deckhand::Payload::Decoder::Invalid, literal[0, 60]) { Deckhand::Payload.decode(raw) }
    else
      counts[:read] += 1
      assert_equal Marshal.dump(plain["args"]), Marshal.dump(Deckhand::Payload.decode(raw)["args"]), literal[0, 60]
    end
  end

  def test_find_names_where_a_number_that_is_not_finite_sits
    assert_equal %(args[1]["x"][0]), HugeNumbers.find({"class" => "X", "args" => [1, {"x" => [-Float::INFINITY]}]})
    assert_equal "created_at", HugeNumbers.find({"created_at" => Float::NAN, "args" => []})
    assert_nil HugeNumbers.find({"args" => [1.5, [2.5e300], {"y" => 10**400}]})
  end

  private

  def random_literal(random)
    digits = ->(n) { Array.new(n) { random.rand(10) }.join }
    int = [random.rand(1..9).to_s + digits.call(random.rand(0..319)), "0"].sample(random: random)
    int = "-#{int}" if random.rand(2).zero?
    fraction = random.rand(2).zero? ? ".#{digits.call(random.rand(1..30))}" : ""
    exponent = if random.rand(4).zero? then ""
    else
      "#{%w[e E].sample(random: random)}#{["", "+", "-"].sample(random: random)}#{"0" * random.rand(0..3)}#{random.rand(0..450)}"
    end
    exponent = "e0" if fraction.empty? && exponent.empty? # a Float literal needs one of the two
    "#{int}#{fraction}#{exponent}"
  end

  def random_place(random, literal)
    space = -> { [" ", "\n", "\t", "\r\n", ""].sample(random: random) }
    case random.rand(3)
    when 0 then "[#{space.call}#{literal}#{space.call}]"
    when 1 then %([1,{"k":#{space.call}#{literal}#{space.call}},"x"])
    else "[[#{literal},#{literal}],2]"
    end
  end
end
