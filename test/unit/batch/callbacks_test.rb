# frozen_string_literal: true

require_relative "../../support/batch/batch_helper"

# Callbacks run as jobs, once each, after the batch's jobs.
class BatchCallbacksTest < Minitest::Test
  include Deckhand::BatchHelpers

  def test_complete_and_success_run_once_after_every_job_with_status_and_options
    config = server_config
    batch = Deckhand::Batch.new
    batch.description = "import"
    batch.on(:success, BatchApp::Callbacks, "import_id" => 7)
    batch.on(:complete, BatchApp::Callbacks)
    batch.on(:death, BatchApp::Callbacks)
    batch.jobs { BatchApp::Work.perform_bulk(Array.new(20) { |i| ["w#{i}"] }) }
    with_server(config) { wait_for_callbacks(2) }
    assert_all_ran
    assert_equal %w[complete success], callbacks.map { |c| c["event"] }.sort
    success = callbacks("success").first
    assert_equal({"import_id" => 7}, success["options"])
    assert_equal [batch.bid, 20, 0, 0, 20], success.values_at("bid", "total", "pending", "failures", "runs")
    assert_equal 20, callbacks("complete").first["runs"], "complete ran before every job had"
    status = batch.status
    assert status.complete?
    assert status.success?
    refute status.death?
    assert_equal "import", status.description
    assert_operator status.success_at, :>=, status.created_at
  end

  def test_a_job_that_expired_unstarted_counts_as_a_success_of_its_batch
    config = server_config
    batch = Deckhand::Batch.new
    batch.on(:success, BatchApp::Callbacks)
    batch.jobs do
      BatchApp::Work.perform_async("runs")
      BatchApp::Work.set(expires_in: 0.001).perform_in(0.001, "expires")
    end
    with_server(config) { wait_for_callbacks(1, event: "success") }
    assert_equal ["runs"], runs
    assert_equal 1, redis.call("GET", "stat:expired").to_i
    assert batch.status.success?
  end

  def test_many_batches_at_once_each_fire_once
    config = server_config(concurrency: 8)
    batches = Array.new(10) do |n|
      batch = Deckhand::Batch.new
      batch.on(:success, BatchApp::Callbacks)
      batch.jobs { 5.times { |i| BatchApp::Work.perform_async("b#{n}-#{i}") } }
      batch
    end
    with_server(config) { wait_for_callbacks(10) }
    assert_all_ran
    assert_equal batches.map(&:bid).sort, callbacks("success").map { |c| c["bid"] }.sort
  end

  def test_jobs_pushed_outside_the_block_do_not_count
    config = server_config
    batch = Deckhand::Batch.new
    batch.on(:success, BatchApp::Callbacks)
    batch.jobs { BatchApp::Work.perform_async("in") }
    BatchApp::Work.perform_async("out")
    with_server(config) do
      wait_for_callbacks(1)
      wait_for(message: "the job outside the batch") { runs.include?("out") }
    end
    assert_equal 1, callbacks("success").first["total"]
  end

  def test_a_callback_that_raises_retries_without_firing_again
    config = server_config
    batch = Deckhand::Batch.new
    batch.on(:success, "NoSuchCallbackClass")
    batch.on(:success, BatchApp::Callbacks)
    batch.jobs { BatchApp::Work.perform_async("w") }
    with_server(config) do
      wait_for_callbacks(1)
      wait_for(message: "the broken callback in the retry set") { redis.call("ZCARD", "retry") == 1 }
    end
    failed = zset("retry").first.first
    assert_equal ["Deckhand::Batch::CallbackJob", "NameError"], failed.values_at("class", "error_class")
    assert_equal 1, callbacks("success").size
  end

  # A callback job written into Redis by hand, naming a class with no such
  # callback: the class is never built, and the job fails as a callback
  # target that raises would.
  def test_a_target_without_the_callback_method_is_never_built
    config = server_config
    Deckhand::Client.push("class" => "Deckhand::Batch::CallbackJob", "args" => ["b1", "success", "BatchCallbacksTest::Stranger", {}])
    with_server(config) { wait_for(message: "the retry") { redis.call("ZCARD", "retry") == 1 } }
    failed = zset("retry").first.first
    assert_equal "ArgumentError", failed["error_class"]
    assert_includes failed["error_message"], "target BatchCallbacksTest::Stranger is not a class with a public on_success method"
    assert_empty Stranger.built
  end

  class Stranger
    @built = []

    class << self
      attr_reader :built
    end

    def initialize = Stranger.built << :initialize
  end
end
