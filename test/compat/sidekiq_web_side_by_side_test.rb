# frozen_string_literal: true

require "test_helper"
require "stringio"
require "rack/mock"
require_relative "compat_helper"
require "sidekiq/web"
require "sidekiq/metrics/query"
require "deckhand/api"

# A fleet moving one process at a time: Sidekiq's own API and Web UI (7.3
# or 8.1, the bundle's) read what Deckhand writes into the same Redis
# (timestamps, metrics, pause).
class SidekiqWebSideBySideTest < Minitest::Test
  include Deckhand::CompatTest

  # The compat queue's row on Sidekiq's Queues page: name, size, latency.
  LATENCY_CELL = %r{href="/queues/#{QUEUE}".*?<td class="num">.*?<td class="num">\s*<span[^>]*>([^<]+)</span>}m

  # With Sidekiq 7 Float seconds, and a line when it comes and goes; with
  # Sidekiq 8 its own milliseconds all along, and no line.
  def test_timestamps_follow_the_sidekiq_fleet_and_say_so_once
    log = StringIO.new
    Deckhand.config = auto_config(log)
    assert_kind_of Integer, pushed_job("before")["created_at"], "no Sidekiq in this Redis: Sidekiq 8's milliseconds"

    Deckhand::SidekiqHarness.server(queues: ["sidekiq-only"]) do
      wait_for(message: "the Sidekiq process record") { Sidekiq::ProcessSet.new.size == 1 }
      job = pushed_job
      assert_kind_of FLEET_TIME, job["created_at"]
      assert_kind_of FLEET_TIME, job["enqueued_at"]
      assert_kind_of FLEET_TIME, pushed_job["created_at"]
      assert_includes 0.0..60.0, Sidekiq::Queue.new(QUEUE).latency
      assert_includes 0.0..60.0, web_latency, "Sidekiq's Web UI shows a sane latency"
      assert_equal Time.now.year, Sidekiq::Queue.new(QUEUE).find_job(job["jid"]).created_at.year

      forced = new_config(timestamps: :millis)
      assert_kind_of Integer, Deckhand::Client.new(config: forced).push("class" => "CompatFlakyJob", "args" => [1], "queue" => "x")
        .then { |jid| jobs_in("x").find { |j| j["jid"] == jid }["created_at"] }, "the setting still forces a format"
    end

    assert_kind_of Integer, pushed_job["created_at"], "the Sidekiq process left: milliseconds"
    said = SIDEKIQ_7 ? 1 : 0
    assert_equal said, log.string.scan("writing timestamps as Float seconds").size, log.string
    assert_equal said, log.string.scan("writing timestamps as Integer milliseconds again").size, log.string
  end

  def test_a_server_writes_retry_timestamps_for_the_fleet_it_shares
    Deckhand::SidekiqHarness.server(queues: ["sidekiq-only"]) do
      wait_for(message: "the Sidekiq process record") { Sidekiq::ProcessSet.new.size == 1 }
      config = fast_config(timestamps: :auto)
      config.fleet_versions.check_every = 0
      jid = CompatFlakyJob.perform_async("flaky", 1)
      with_server(config) do
        wait_for(message: "the retry") { Sidekiq::RetrySet.new.find_job(jid) }
      end
      entry = Sidekiq::RetrySet.new.find_job(jid)
      assert_kind_of FLEET_TIME, entry["failed_at"]
      assert_kind_of FLEET_TIME, entry["created_at"]
      assert_in_delta Time.now.to_f, Deckhand::Payload.to_epoch(entry["failed_at"]), 60
      page = web_get("/retries/#{entry.score}-#{jid}")
      assert_equal 200, page.status
      times = page.body.scan(/<time[^>]*datetime="([^"]+)"/).flatten.map { |t| Time.iso8601(t) }
      refute_empty times
      times.each { |t| assert_in_delta Time.now.to_f, t.to_f, 3600, "Sidekiq's retry page: Created At, Enqueued, Failed, Next Retry" }
    end
  end

  def test_metrics_show_on_sidekiqs_metrics_tab
    CompatFlakyJob.perform_bulk([["a", 0], ["b", 0], ["c", 0]])
    CompatFlakyJob.set(retry: false).perform_async("d", 1)
    with_server(fast_config) do
      wait_for(message: "Sidekiq's metrics to count 4 runs") { sidekiq_totals["p"] == 4 }
    end

    totals = sidekiq_totals
    assert_equal 1, totals["f"]
    assert_operator totals["ms"], :>=, 0
    history = Sidekiq::Metrics::Query.new.for_job("CompatFlakyJob").job_results["CompatFlakyJob"]
    assert_equal 3, history.hist.values.flatten.sum, "the three successful runs in Sidekiq's histogram"
    assert_equal 4, history.totals["p"]

    page = web_get("/metrics")
    assert_equal 200, page.status
    assert_includes page.body, "CompatFlakyJob"
    refute_includes page.body, "No data found"
    assert_equal 200, web_get("/metrics/CompatFlakyJob").status
  end

  def test_a_queue_paused_either_way_is_paused_for_both
    queue = Deckhand::API.new(Deckhand.config).queue(QUEUE)
    queue.pause
    assert_equal 1, redis.call("SISMEMBER", "paused", QUEUE), "written where Sidekiq Pro reads it"
    refute Sidekiq::Queue.new(QUEUE).paused?, "Sidekiq 7.3 OSS has no pause: its Queue#paused? is always false"
    queue.resume
    assert_equal 0, redis.call("SISMEMBER", "paused", QUEUE)

    redis.call("SADD", "paused", QUEUE) # what Sidekiq Pro's Queue#pause! leaves
    assert Deckhand::API.new(Deckhand.config).queue(QUEUE).paused?
    held = CompatFlakyJob.perform_async("held", 0)
    Deckhand::Client.new.push("class" => "CompatFlakyJob", "args" => ["other", 0], "queue" => "other")
    with_server(fast_config(queues: [QUEUE, "other"])) do
      wait_for(message: "the unpaused queue's job") { Deckhand::TestJobs.runs.any? { |_, args| args.first == "other" } }
      assert_equal [held], jobs_in(QUEUE).map { |j| j["jid"] }, "the paused queue's job waits"
      queue.resume
      wait_for(message: "the resumed queue's job") { runs_of(held).any? }
    end
  end

  private

  def auto_config(log)
    config = new_config(timestamps: :auto)
    config.logger = ::Logger.new(log)
    config.fleet_versions.check_every = 0 # look on every push; 30 s in production
    config
  end

  def pushed_job(queue = QUEUE)
    jid = CompatFlakyJob.set(queue: queue).perform_async("a", 0)
    jobs_in(queue).find { |j| j["jid"] == jid }
  end

  def sidekiq_totals = Sidekiq::Metrics::Query.new.top_jobs.job_results["CompatFlakyJob"].totals

  def web_latency
    cell = web_get("/queues").body[LATENCY_CELL, 1]
    Float(cell.delete(","))
  end

  # Sidekiq's Web UI at the Rack level; it wants a session for its CSRF token.
  def web_get(path)
    verbose, $VERBOSE = $VERBOSE, nil # Sidekiq::Web reads $TESTING, set only in Sidekiq's suite
    Rack::MockRequest.new(Sidekiq::Web.new).get(path, "rack.session" => {})
  ensure
    $VERBOSE = verbose
  end
end
