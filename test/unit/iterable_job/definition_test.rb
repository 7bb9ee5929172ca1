# frozen_string_literal: true

require_relative "../../support/iterable/iterable_helper"

# Mistakes in an iterable job are reported where they are made, with the fix.
class IterableDefinitionTest < Minitest::Test
  def test_defining_perform_is_refused_at_class_definition
    error = assert_raises(ArgumentError) do
      Class.new do
        include Deckhand::IterableJob

        def perform = nil
      end
    end
    assert_match(/must not define #perform: define build_enumerator\(\*args, cursor:\) and each_iteration/, error.message)
  end

  def test_perform_defined_before_the_include_is_refused_too
    assert_raises(ArgumentError) do
      Class.new do
        def perform = nil

        include Deckhand::IterableJob
      end
    end
  end

  def test_a_subclass_defining_perform_is_refused
    assert_raises(ArgumentError) { Class.new(IterableJobs::CountJob) { def perform = nil } }
  end

  def test_a_build_enumerator_that_returns_no_enumerator_is_named
    job = Class.new do
      include Deckhand::IterableJob

      def build_enumerator(cursor:) = [1, 2]
    end.new
    job.jid = "a1"
    error = assert_raises(ArgumentError) { job.perform }
    assert_match(/#build_enumerator must return an Enumerator, but returned Array: an Enumerator yielding \[item, cursor\]; use a helper/, error.message)
  end

  def test_a_cursor_json_cannot_carry_is_refused
    job = Class.new do
      include Deckhand::IterableJob

      def build_enumerator(cursor:) = Enumerator.new { |y| y.yield(1, Time.at(0)) }

      def each_iteration(_item) = nil
    end.new
    job.jid = "a2"
    error = assert_raises(ArgumentError) { job.perform }
    assert_match(/cursor must be made of JSON types/, error.message)
  end

  def test_max_iteration_runtime_must_be_a_positive_number_of_seconds
    error = assert_raises(ArgumentError) do
      Class.new(IterableJobs::CountJob) { deckhand_options max_iteration_runtime: "5m" }
    end
    assert_match(/max_iteration_runtime: "5m" is not valid; give a number of seconds/, error.message)
  end
end
