# frozen_string_literal: true

require "test_helper"

# What perform_chunk gets (Deckhand::Chunk) and the chunk: option that asks
# for it, refused where it is declared when it cannot work.
class ChunkTest < Minitest::Test
  def chunk
    @chunk ||= Deckhand::Chunk.new([[[1, "a"], {"jid" => "j1"}], [[2, "b"], {"jid" => "j2"}]])
  end

  def test_it_gives_each_members_args_and_job_in_order
    assert_equal [[1, "a"], [2, "b"]], chunk.args
    assert_equal %w[j1 j2], chunk.jobs.map { |job| job["jid"] }
    assert_equal 2, chunk.size
    assert_equal [[[1, "a"], "j1"], [[2, "b"], "j2"]], chunk.map { |args, job| [args, job["jid"]] }
    assert_equal 2, chunk.each.size
  end

  def test_fail_records_a_members_error_by_its_job_or_jid
    error = ArgumentError.new("bad row")
    chunk.fail(chunk.jobs[1], error)
    assert_same error, chunk.failure("j2")
    assert_nil chunk.failure("j1")
    chunk.fail("j1", IOError.new("gone"))
    assert_instance_of IOError, chunk.failure("j1")
  end

  def test_fail_refuses_a_stranger_or_an_error_that_is_no_exception
    stranger = assert_raises(ArgumentError) { chunk.fail({"jid" => "other"}, RuntimeError.new) }
    assert_includes stranger.message, "\"other\" is no member of this chunk"
    message = assert_raises(ArgumentError) { chunk.fail("j1", "it broke") }
    assert_includes message.message, "give the member's error as an Exception"
  end

  def test_result_keeps_a_members_value_by_its_job_or_jid_and_refuses_a_stranger
    assert_nil chunk.result(chunk.jobs[0], {"rows" => 3})
    chunk.result("j2", nil)
    assert_equal [{"rows" => 3}, nil], %w[j1 j2].map { |jid| chunk.result_of(jid) }
    assert_equal({"j1" => {"rows" => 3}, "j2" => nil}, chunk.results)
    stranger = assert_raises(ArgumentError) { chunk.result("other", 1) }
    assert_includes stranger.message, "chunk.result: \"other\" is no member of this chunk"
  end

  def test_the_option_is_stored_with_string_keys_and_a_default_wait
    klass = Class.new do
      include Deckhand::Job

      deckhand_options chunk: {size: 1000}
    end
    assert_equal({"size" => 1000, "wait" => 0}, klass.deckhand_options["chunk"])
    sub = Class.new(klass) { deckhand_options chunk: false }
    refute sub.deckhand_options["chunk"], "a subclass may run its jobs one at a time"
  end

  def test_a_chunk_option_that_cannot_work_is_refused_where_it_is_declared
    [{size: 0}, {size: 10_001}, {size: "10"}, {wait: 1}, {size: 10, wait: -1}, {size: 10, wait: 61}, {size: 10, each: 2}, 10].each do |bad|
      error = assert_raises(ArgumentError, bad.inspect) do
        Class.new do
          include Deckhand::Job

          deckhand_options chunk: bad
        end
      end
      assert_includes error.message, "chunk: #{bad.inspect} is not valid; give {size: jobs a call (1 to 10000)"
    end
  end

  class InlineChunkJob
    include Deckhand::Job

    deckhand_options chunk: {size: 10}

    def perform_chunk(chunk) = chunk.each { |(n), job| n.positive? ? Deckhand::TestJobs.record(n) : chunk.fail(job, RangeError.new(n.to_s)) }
  end

  class LackingChunkJob
    include Deckhand::Job

    deckhand_options chunk: {size: 10}
  end

  def test_perform_inline_runs_a_chunked_job_as_a_chunk_of_one
    InlineChunkJob.perform_inline(4)
    assert_equal [4], Deckhand::TestJobs.runs
    assert_raises(RangeError) { InlineChunkJob.perform_inline(0) }
    error = assert_raises(Deckhand::ConfigError) { LackingChunkJob.perform_inline(1) }
    assert_equal "ChunkTest::LackingChunkJob declares chunk: but defines no perform_chunk(chunk); define it, or remove the chunk option", error.message
  end
end
