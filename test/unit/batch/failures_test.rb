# frozen_string_literal: true

require_relative "../../support/batch/batch_helper"
require "deckhand/api"
require "deckhand/web"
require "erb"

# Failing jobs: retries, deaths and a dead job brought back.
class BatchFailuresTest < Minitest::Test
  include Deckhand::BatchHelpers

  # What a browser's same-origin form POST carries.
  CLICK = {"HTTP_SEC_FETCH_SITE" => "same-origin"}.freeze

  def test_a_retrying_job_completes_the_batch_but_it_succeeds_only_once_the_retry_does
    config = server_config
    batch = tracked_batch { BatchApp::Work.perform_async("fine") && BatchApp::Flaky.perform_async("flaky") }
    flaky = @jids.last
    with_server(config) do
      complete = wait_for_callbacks(1, event: "complete").first
      assert_equal [1, 1, 2], complete.values_at("pending", "failures", "total")
      wait_for(message: "three failed attempts") { redis.call("LLEN", "app:attempts") >= 3 }
      assert_empty callbacks("success"), "a retry completed the batch early"
      status = batch.status
      assert_equal [1, 1, [flaky]], [status.pending, status.failures, status.failed_jids]
      assert_equal "ArgumentError", status.failure_info.first["error_class"]
      refute status.failure_info.first["dead"]
      redis.call("SET", "app:fixed:flaky", "1")
      wait_for_callbacks(1, event: "success")
    end
    assert_all_ran
    assert_equal %w[complete success], callbacks.map { |c| c["event"] }
    assert_equal [0, 0], callbacks("success").first.values_at("pending", "failures")
    assert_empty batch.status.failed_jids
  end

  def test_a_job_that_dies_fires_death_once_and_the_batch_completes_without_success
    config = server_config
    batch = tracked_batch do
      BatchApp::Work.perform_async("fine")
      BatchApp::Doomed.perform_async("doomed-1")
      BatchApp::Doomed.perform_async("doomed-2")
    end
    with_server(config) do
      wait_for_callbacks(2)
      wait_for(message: "both jobs in the dead set") { redis.call("ZCARD", "dead") == 2 }
    end
    assert_all_ran
    assert_equal %w[complete death], callbacks.map { |c| c["event"] }.sort
    dead = zset("dead").map(&:first)
    assert_equal [batch.bid] * 2, dead.map { |job| job["bid"] }
    status = batch.status
    assert status.death?
    assert status.complete?
    refute status.success?
    assert_equal dead.map { |job| job["jid"] }.sort, status.dead_jids.sort
    assert_equal [true, true], status.failure_info.map { |info| info["dead"] }
  end

  # Retried through the data API, as the dashboard's Retry button does.
  def test_retrying_a_dead_job_can_still_let_the_batch_succeed
    config = server_config
    batch = tracked_batch { BatchApp::Doomed.perform_async("doomed") }
    with_server(config) do
      wait_for_callbacks(2)
      wait_for(message: "the job in the dead set") { redis.call("ZCARD", "dead") == 1 }
      redis.call("SET", "app:fixed:doomed", "1")
      dead = Deckhand::API.new(config).dead
      assert_equal 1, dead.retry(dead.page(1, 10))
      wait_for_callbacks(1, event: "success")
    end
    assert_all_ran
    assert_equal %w[complete death success], callbacks.map { |c| c["event"] }.sort
    status = batch.status
    assert status.success?
    assert_empty status.dead_jids
    assert_equal ["doomed"], runs
  end

  # The dashboard's Kill on a retrying job is a death: the batch fires
  # :death, and its record says who killed the job.
  def test_killing_a_retrying_job_from_the_dashboard_fires_death
    config = server_config
    batch = tracked_batch { BatchApp::Flaky.perform_async("flaky") }
    dashboard = Rack::MockRequest.new(Deckhand::Web.new(config: config))
    with_server(config) do
      wait_for_callbacks(1, event: "complete")
      # The job moves between the retry set and its queue every few ms: kill
      # it from the retry set the moment it is there, as a click would.
      wait_for(message: "the job killed from the retry set") do
        entry = Deckhand::API.new(config).retries.page(1, 1).first
        response = entry && dashboard.post("/retries/#{ERB::Util.url_encode(entry.key)}", CLICK.merge(params: {"action" => "kill"}))
        Array(response&.headers&.fetch("set-cookie", nil)).join("\n").include?("deckhand_notice=killed.1")
      end
      wait_for_callbacks(1, event: "death")
    end
    assert_all_ran
    assert_equal %w[complete death], callbacks.map { |c| c["event"] }.sort
    status = batch.status
    assert status.death?
    assert_equal @jids, status.dead_jids
    assert_equal ["Deckhand::KilledByHand"], status.failure_info.map { |info| info["error_class"] }
    assert_equal @jids, zset("dead").map { |job, _| job["jid"] }
  end

  # retry: false drops the job (Sidekiq's rule): it ran once and failed, so
  # the batch completes, but it can never succeed, and nothing died.
  def test_a_dropped_job_completes_the_batch_without_death_or_success
    config = server_config
    batch = tracked_batch { BatchApp::Doomed.set(retry: false).perform_async("dropped") }
    with_server(config) { wait_for_callbacks(1, event: "complete") }
    assert_all_ran
    assert_equal %w[complete], callbacks.map { |c| c["event"] }
    assert_equal 0, redis.call("ZCARD", "dead")
    assert_equal [1, 1], [batch.status.pending, batch.status.failures]
  end

  # dead: false drops a job out of retries, but the death handlers hear of
  # it (Sidekiq's rule): so does its batch, before the drop is written.
  def test_a_job_out_of_retries_with_dead_false_is_a_death_of_its_batch
    config = server_config
    batch = tracked_batch { BatchApp::Doomed.set(dead: false).perform_async("discarded") }
    with_server(config) { wait_for_callbacks(2) }
    assert_all_ran
    assert_equal 0, redis.call("ZCARD", "dead")
    assert_equal %w[complete death], callbacks.map { |c| c["event"] }.sort
    assert_equal @jids, batch.status.dead_jids
  end

  private

  def tracked_batch(&block)
    batch = Deckhand::Batch.new
    %i[success complete death].each { |event| batch.on(event, BatchApp::Callbacks) }
    @jids = batch.jobs(&block)
    batch
  end
end
