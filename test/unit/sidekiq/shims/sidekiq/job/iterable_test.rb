# frozen_string_literal: true

require_relative "../../../../../support/testing/testing_helper"

# Walks a list; records each item and its callbacks in memory.
class TestingWalkJob
  include Deckhand::IterableJob

  def build_enumerator(items, cursor:) = array_enumerator(items, cursor: cursor)

  def each_iteration(item, _items) = Deckhand::TestJobs.record([:step, item])

  def on_complete = Deckhand::TestJobs.record([:complete])

  def on_cancel = Deckhand::TestJobs.record([:cancel])
end

# Iterable jobs in an application's tests: fake and inline mode keep their
# progress in memory (no Redis needed); disable mode uses Redis.
class TestingIterableTest < Minitest::Test
  include Deckhand::TestingHelpers

  def test_drain_runs_an_iterable_job_to_the_end_without_redis
    Deckhand::Testing.fake!
    TestingWalkJob.perform_async(%w[a b c])
    assert_equal 1, TestingWalkJob.drain
    assert_equal [[:step, "a"], [:step, "b"], [:step, "c"], [:complete]], Deckhand::TestJobs.runs
    assert_empty redis.call("KEYS", "it-*")
  end

  def test_inline_resumes_from_progress_kept_in_memory_and_sees_a_cancel
    Deckhand::Testing.inline! do
      jid = "abcdefabcdefabcdefabcdef"
      Deckhand::Testing.iterations.flush(jid, executions: 1, cursor: "2", runtime: 0.5, steps: 2)
      Deckhand::Client.push("class" => "TestingWalkJob", "args" => [%w[a b c d]], "jid" => jid)
      assert_equal [[:step, "c"], [:step, "d"], [:complete]], Deckhand::TestJobs.runs
      assert_empty Deckhand::Testing.iterations[jid], "forgotten once complete"

      Deckhand::TestJobs.reset
      cancelled = "0123456789abcdef01234567"
      assert_kind_of Integer, Deckhand::Client.cancel!(cancelled)
      Deckhand::Client.push("class" => "TestingWalkJob", "args" => [%w[a]], "jid" => cancelled)
      assert_equal [[:cancel]], Deckhand::TestJobs.runs
    end
    assert_empty redis.call("KEYS", "it-*"), "nothing reached Redis"
  end

  def test_disable_mode_keeps_progress_in_redis
    jid = "fedcbafedcbafedcbafedcba"
    Deckhand::Testing.disable!
    Deckhand::Client.cancel!(jid)
    refute_nil redis.call("HGET", "it-#{jid}", "cancelled")
    assert_empty Deckhand::Testing.iterations[jid]
  end
end
