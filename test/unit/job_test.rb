# frozen_string_literal: true

require "test_helper"

class JobTest < Minitest::Test
  class BaseJob
    include Deckhand::Job

    deckhand_options({"queue" => "base", "retry" => 3, "custom" => "x"})
    deckhand_retry_in { |count, _error, _payload| count * 2 }
  end

  class ChildJob < BaseJob
    deckhand_options queue: "child"
    def perform(a, b) = Deckhand::TestJobs.record([jid, a, b])
  end

  def test_options_inherit_and_override
    assert_equal({"retry" => 3, "queue" => "child", "custom" => "x"}, ChildJob.deckhand_options)
    assert_equal "base", BaseJob.deckhand_options["queue"]
    assert_equal 4, ChildJob.deckhand_retry_in.call(2, nil, nil)
  end

  def test_options_are_validated_where_declared
    error = assert_raises(ArgumentError) { Class.new { include Deckhand::Job }.deckhand_options(retry: "yes") }
    assert_includes error.message, "retry"
    assert_raises(ArgumentError) { Class.new { include Deckhand::Job }.deckhand_options(queue: "") }
    assert_raises(ArgumentError) { Class.new { include Deckhand::Job }.deckhand_options(args: [1]) }
  end

  def test_perform_inline_round_trips_through_json
    ChildJob.perform_inline(1, {"k" => [1.5, nil]})
    jid, a, b = Deckhand::TestJobs.runs.first
    assert_match(/\A\h{24}\z/, jid)
    assert_equal 1, a
    assert_equal({"k" => [1.5, nil]}, b)
    assert_raises(Deckhand::InvalidJob) { ChildJob.perform_inline(:a, 1) }
  end
end
