# frozen_string_literal: true

require "test_helper"

class MiddlewareChainTest < Minitest::Test
  class Tag
    def initialize(log, name)
      @log = log
      @name = name
      @calls = 0
    end

    def call(*)
      @calls += 1
      @log << "#{@name}:in:#{@calls}"
      yield
      @log << "#{@name}:out"
    end
  end

  class Stop
    def call(*) = nil
  end

  def test_runs_in_order_with_fresh_instances
    log = []
    chain = Deckhand::Middleware::Chain.new
    chain.add(Tag, log, "a")
    chain.prepend(Class.new(Tag), log, "z")
    assert_equal :ok, chain.invoke(1, 2) { log << "job" && :ok }
    chain.invoke { log << "job" }
    assert_equal %w[z:in:1 a:in:1 job a:out z:out z:in:1 a:in:1 job a:out z:out], log
  end

  class Built
    attr_reader :given

    def initialize(*args, **kwargs)
      @given = [args, kwargs]
    end

    def call(*) = yield
  end

  # Every job builds its chain: with no argument, one, many, and keywords.
  def test_each_instance_is_built_with_the_arguments_it_was_added_with
    [[[], {}], [[:a], {}], [[:a, {b: 1}], {}], [[:a], {b: 1}], [[{b: 1}], {}]].each do |args, kwargs|
      chain = Deckhand::Middleware::Chain.new.add(Built, *args, **kwargs)
      assert_equal [args, kwargs], chain.entries.first.build.given, "#{args.inspect}, #{kwargs.inspect}"
    end
  end

  class PassesWithoutBid
    def self.deckhand_passes?(payload) = payload["bid"].nil?

    def call(*) = yield
  end

  # A chain passes a job when every middleware says it would only yield.
  def test_passes_a_job_only_when_every_middleware_would_only_yield_for_it
    chain = Deckhand::Middleware::Chain.new
    assert chain.passes?({}), "an empty chain"
    chain.add(PassesWithoutBid)
    assert chain.passes?({"jid" => "a"})
    refute chain.passes?({"bid" => "b"})
    chain.add(Stop)
    refute chain.passes?({"jid" => "a"}), "a middleware that says nothing is run"
  end

  def test_a_middleware_that_does_not_yield_stops_the_job
    ran = false
    chain = Deckhand::Middleware::Chain.new.add(Stop)
    assert_nil chain.invoke { ran = true }
    refute ran
  end

  def test_add_replaces_and_remove
    chain = Deckhand::Middleware::Chain.new
    chain.add(Stop).add(Stop)
    assert_equal 1, chain.size
    chain.remove(Stop)
    assert chain.empty?
  end

  def test_insert_before_and_after_place_and_move_entries_and_clear_empties
    first = Class.new(Tag)
    last = Class.new(Tag)
    chain = Deckhand::Middleware::Chain.new.add(Tag, [], "t")
    chain.insert_before(Tag, first, [], "f").insert_after(Tag, last, [], "l")
    assert_equal [first, Tag, last], chain.entries.map(&:klass)
    chain.insert_after(last, first)
    assert_equal [Tag, last, first], chain.entries.map(&:klass), "an entry already there moves"
    chain.insert_before(Stop, Stop)
    assert_equal Stop, chain.entries.first.klass, "absent anchor: first"
    assert_same chain.entries, chain.clear.entries
    assert chain.empty?
  end
end
