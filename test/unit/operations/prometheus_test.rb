# frozen_string_literal: true

require "test_helper"
require "net/http"
require "support/prometheus_parser"
require "deckhand/web"
require "rack/mock"

# /metrics after real jobs ran: the process's endpoint (metrics_port) and the
# dashboard's (fleet gauges from Redis), read by a strict parser of the
# format, every value checked against what the test did.
class PrometheusTest < Minitest::Test
  Parser = Deckhand::PrometheusParser

  def scrape(port, path = "/metrics")
    response = Net::HTTP.get_response(URI("http://127.0.0.1:#{port}#{path}"))
    [response, (response.code == "200") ? Parser.parse(response.body) : nil]
  end

  def test_a_process_counts_its_jobs_per_class_and_queue
    config = new_config(metrics_port: 0, concurrency: 3, queues: %w[default other], max_retries: 0)
    client = Deckhand::Client.new(config: config)
    with_server(config) do |launcher|
      port = launcher.operations.metrics_listener.port
      ledger = Hash.new(0)
      7.times { |i| client.push("class" => "RecordJob", "args" => [i]).then { ledger[%w[RecordJob default]] += 1 } }
      4.times { |i| client.push("class" => "RecordJob", "args" => [i], "queue" => "other").then { ledger[%w[RecordJob other]] += 1 } }
      3.times { |i| client.push("class" => "FailJob", "args" => [i], "retry" => 0) }
      wait_for(message: "every job to run") { Deckhand::TestJobs.runs.size == 14 }
      families = nil
      wait_for(message: "the scrape to count all 14 jobs") do
        _, families = scrape(port)
        families["deckhand_jobs_processed_total"].samples.sum { |s| s[2] } == 14
      end
      processed = families.fetch("deckhand_jobs_processed_total")
      failed = families.fetch("deckhand_jobs_failed_total")
      assert_equal "counter", processed.type
      assert_equal 7, processed.value({"class" => "RecordJob", "queue" => "default"})
      assert_equal 4, processed.value({"class" => "RecordJob", "queue" => "other"})
      assert_equal 3, processed.value({"class" => "FailJob", "queue" => "default"})
      assert_equal 0, failed.value({"class" => "RecordJob", "queue" => "default"})
      assert_equal 3, failed.value({"class" => "FailJob", "queue" => "default"})
      histogram = families.fetch("deckhand_job_execution_seconds")
      assert_equal "histogram", histogram.type
      assert_equal 7, histogram.value({"class" => "RecordJob", "queue" => "default", "outcome" => "success"}, "deckhand_job_execution_seconds_count")
      assert_operator histogram.value({"class" => "RecordJob", "queue" => "default", "outcome" => "success"}, "deckhand_job_execution_seconds_sum"), :>, 0
      assert_equal 3, histogram.value({"class" => "FailJob", "queue" => "default", "outcome" => "failure"}, "deckhand_job_execution_seconds_count")
      refute(histogram.samples.any? { |sample| sample[1]["class"] == "FailJob" && sample[1]["outcome"] == "success" }, "no success histogram for a class that only failed")
      assert_equal 3, families.fetch("deckhand_process_concurrency").value
      assert_equal 0, families.fetch("deckhand_process_quiet").value
      assert_operator families.fetch("deckhand_process_resident_memory_bytes").value, :>, 0
      assert_operator families.fetch("deckhand_process_redis_roundtrip_seconds").value, :>, 0
      assert_in_delta 0, families.fetch("deckhand_process_clock_offset_seconds").value, 0.05, "this host and Redis share a clock"
      assert_equal 0, families.fetch("deckhand_recoveries_total").value
      assert_equal 3, api_dead_size, "the failures were real failures, in the dead set"
      response, = scrape(port, "/nope")
      assert_equal "404", response.code
      launcher.quiet
      _, families = scrape(port)
      assert_equal 1, families.fetch("deckhand_process_quiet").value
    end
  end

  class CountedChunkJob
    include Deckhand::Job

    deckhand_options chunk: {size: 10, wait: 0.3}
    CALLS = Queue.new

    def perform_chunk(chunk)
      CALLS << chunk.size
      chunk.each { |(n), job| Deckhand::TestJobs.record([job["jid"], n]) }
    end
  end

  # A chunk counts as a chunk, and each of its jobs as a job.
  def test_a_process_counts_its_chunks_and_their_jobs_apart
    CountedChunkJob::CALLS.clear
    config = new_config(metrics_port: 0, concurrency: 1)
    Deckhand::Client.new(config: config).push_bulk("class" => CountedChunkJob.name, "args" => (1..5).zip)
    with_server(config) do |launcher|
      port = launcher.operations.metrics_listener.port
      wait_for(message: "every member run") { Deckhand::TestJobs.runs.size == 5 }
      families = nil
      labels = {"class" => CountedChunkJob.name, "queue" => "default"}
      # A chunk is counted once its members' outcomes are: after their jobs.
      wait_for(message: "the scrape to count the chunk's five jobs and the chunk") do
        _, families = scrape(port)
        families["deckhand_jobs_processed_total"].samples.sum { |s| s[2] } == 5 && families["deckhand_chunks_total"]&.value(labels)
      end
      assert_equal "counter", families.fetch("deckhand_chunks_total").type
      assert_equal CountedChunkJob::CALLS.size, families.fetch("deckhand_chunks_total").value(labels), "one a call of perform_chunk"
      assert_equal 5, families.fetch("deckhand_chunk_jobs_total").value(labels)
      assert_equal 5, families.fetch("deckhand_jobs_processed_total").value(labels)
    end
  end

  def test_recoveries_are_counted_by_the_reaper_that_made_them
    config = new_config(metrics_port: 0, heartbeat_interval: 0.1, heartbeat_ttl: 1, reaper_interval: 0.1)
    dead = "deadhost:1:abc"
    # A process that died holding two jobs: an owner record, its lot, no heartbeat, no connection.
    store = Deckhand::RedisHarness.store
    Deckhand::Store::Inflight::Owners.register(store, dead, {"queues" => ["parked"], "hostname" => "deadhost", "pid" => 1,
                                                   "started_at" => Time.now.to_f - 60, "seen" => Time.now.to_f - 60, "beats_every" => 0.1})
    lot = "deckhand:lot:#{dead}:parked:1"
    redis.call("RPUSH", lot, JSON.generate("class" => "RecordJob", "args" => [1], "jid" => "a" * 24, "queue" => "parked"),
      JSON.generate("class" => "RecordJob", "args" => [2], "jid" => "b" * 24, "queue" => "parked"))
    redis.call("HSET", "deckhand:inflight:#{dead}:parked", "1", "2")
    with_server(config) do |launcher|
      port = launcher.operations.metrics_listener.port
      wait_for(message: "the dead process's jobs back in their queue") { redis.call("LLEN", "queue:parked") == 2 }
      _, families = scrape(port)
      assert_equal 2, families.fetch("deckhand_recoveries_total").value
    end
  end

  def test_the_dashboard_serves_the_fleet_to_prometheus_and_html_to_browsers
    client = Deckhand::Client.new
    3.times { |i| client.push("class" => "RecordJob", "args" => [i], "queue" => "mail\"er\\s") }
    waited = ((Time.now.to_f - 30) * 1000).round
    redis.call("SADD", "queues", "reports")
    redis.call("LPUSH", "queue:reports", JSON.generate("class" => "RecordJob", "args" => [1], "jid" => "w" * 24, "queue" => "reports",
      "created_at" => waited, "enqueued_at" => waited))
    client.push("class" => "RecordJob", "args" => [1], "at" => Time.now.to_f + 600)
    redis.call("ZADD", "retry", Time.now.to_f, JSON.generate("class" => "RecordJob", "args" => [], "jid" => "r" * 24))
    2.times { |i| redis.call("ZADD", "dead", Time.now.to_f, JSON.generate("class" => "RecordJob", "args" => [i], "jid" => i.to_s * 24)) }
    redis.call("SET", "stat:processed", "1234")
    redis.call("SET", "stat:failed", "56")
    Deckhand::API.new.queue("reports").pause
    app = Deckhand::Web.new(config: Deckhand.config)
    response = Rack::MockRequest.new(app).get("/metrics", "HTTP_ACCEPT" => "application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.3,*/*;q=0.1")
    assert_equal 200, response.status
    assert_equal "text/plain; version=0.0.4; charset=utf-8", response.headers["content-type"]
    families = Parser.parse(response.body)
    size = families.fetch("deckhand_queue_size")
    assert_equal "gauge", size.type
    assert_equal 3, size.value({"queue" => "mail\"er\\s"})
    assert_equal 1, size.value({"queue" => "reports"})
    assert_in_delta 30, families.fetch("deckhand_queue_latency_seconds").value({"queue" => "reports"}), 5
    assert_equal 1, families.fetch("deckhand_queue_paused").value({"queue" => "reports"})
    assert_equal 0, families.fetch("deckhand_queue_paused").value({"queue" => "mail\"er\\s"})
    assert_equal 4, families.fetch("deckhand_enqueued_jobs").value
    assert_equal 1, families.fetch("deckhand_scheduled_jobs").value
    assert_equal 1, families.fetch("deckhand_retry_jobs").value
    assert_equal 2, families.fetch("deckhand_dead_jobs").value
    assert_equal 0, families.fetch("deckhand_processes").value
    assert_equal 1234, families.fetch("deckhand_stat_processed_total").value
    assert_equal 56, families.fetch("deckhand_stat_failed_total").value

    browser = Rack::MockRequest.new(app).get("/metrics", "HTTP_ACCEPT" => "text/html,application/xhtml+xml,*/*;q=0.8")
    assert_equal 200, browser.status
    assert_includes browser.headers["content-type"], "text/html"
    assert_includes browser.body, %(href="/metrics?format=prometheus"), "the page links to the format"
    ["*/*", nil, "application/json"].each do |accept|
      plain = Rack::MockRequest.new(app).get("/metrics", accept ? {"HTTP_ACCEPT" => accept} : {})
      assert_equal Deckhand::Operations::Exposition::CONTENT_TYPE, plain.headers["content-type"], "curl and scripts: #{accept.inspect}"
    end
    forced = Rack::MockRequest.new(app).get("/metrics?format=html", "HTTP_ACCEPT" => "*/*")
    assert_includes forced.headers["content-type"], "text/html"
  end

  class TimedJob
    include Deckhand::Job

    def perform(fail) = fail && raise(ArgumentError, "failed on purpose")
  end

  def test_the_fleet_scrape_has_per_class_figures_throttles_and_unworked_queues
    Deckhand.config = new_config(concurrency: 2, throttle: {"exports" => {"concurrency" => 3}})
    redis.call("SADD", "queues", "nobody")
    redis.call("LPUSH", "queue:nobody", JSON.generate("class" => "RecordJob", "args" => [], "jid" => "n" * 24, "queue" => "nobody"))
    with_server do
      3.times { TimedJob.perform_async(false) }
      TimedJob.set(retry: false).perform_async(true)
      wait_for(message: "four runs in the metrics") do
        Deckhand::API.new.metrics(period: "1h").classes.find { |m| m.name == TimedJob.name }&.count == 4
      end
      app = Deckhand::Web.new(config: Deckhand.config)
      families = Parser.parse(Rack::MockRequest.new(app).get("/metrics", "HTTP_ACCEPT" => "*/*").body)
      assert_equal 4, families.fetch("deckhand_class_executions_last_hour").value({"class" => TimedJob.name})
      assert_equal 1, families.fetch("deckhand_class_failures_last_hour").value({"class" => TimedJob.name})
      assert_operator families.fetch("deckhand_class_seconds_last_hour").value({"class" => TimedJob.name}), :>=, 0
      assert_equal 3, families.fetch("deckhand_throttle_concurrency_limit").value({"queue" => "exports"})
      assert_equal 0, families.fetch("deckhand_throttle_held_slots").value({"queue" => "exports"})
      assert_equal 1, families.fetch("deckhand_queue_unworked").value({"queue" => "nobody"}), "no process works it"
      assert_equal 0, families.fetch("deckhand_queue_unworked").value({"queue" => "default"})
    end
  end

  def test_the_fleet_scrape_times_successes_and_failures_apart
    tally = Deckhand::Store::Records::ExecutionMetrics::Tally.new
    10.times { tally.record("SlowWhenItWorks", 2000.0, false) }
    90.times { tally.record("SlowWhenItWorks", 0.06, true) }
    Deckhand::Store::Records::ExecutionMetrics.write(Deckhand.config.store, tally.take)
    app = Deckhand::Web.new(config: Deckhand.config)
    families = Parser.parse(Rack::MockRequest.new(app).get("/metrics", "HTTP_ACCEPT" => "*/*").body)
    durations = families.fetch("deckhand_class_duration_seconds_last_hour")
    assert_in_delta 2.0, durations.value({"class" => "SlowWhenItWorks", "outcome" => "success", "quantile" => "0.5"}), 0.4
    assert_operator durations.value({"class" => "SlowWhenItWorks", "outcome" => "failure", "quantile" => "0.5"}), :<, 0.001
    assert_in_delta 0.0054, families.fetch("deckhand_class_failed_seconds_last_hour").value({"class" => "SlowWhenItWorks"}), 0.0001
  end

  def test_the_dashboards_authorization_hook_guards_the_scrape
    app = Deckhand::Web.new(config: Deckhand.config, authorize: ->(env) { env["HTTP_AUTHORIZATION"] == "Bearer s3cret" })
    assert_equal 403, Rack::MockRequest.new(app).get("/metrics?format=prometheus").status
    response = Rack::MockRequest.new(app).get("/metrics?format=prometheus", "HTTP_AUTHORIZATION" => "Bearer s3cret")
    assert_equal 200, response.status
    Parser.parse(response.body)
  end

  def test_busy_and_processes_count_live_servers
    with_server(new_config(concurrency: 2, timeout: 1)) do
      client = Deckhand::Client.new
      jid = client.push("class" => "SleepJob", "args" => [30])
      wait_for(message: "the job to start") { Deckhand::TestJobs.runs.include?([jid, :start]) }
      app = Deckhand::Web.new(config: Deckhand.config)
      families = nil
      wait_for(message: "the heartbeat to report the busy thread") do
        families = Parser.parse(Rack::MockRequest.new(app).get("/metrics", "HTTP_ACCEPT" => "text/plain").body)
        families.fetch("deckhand_busy_threads").value == 1
      end
      assert_equal 1, families.fetch("deckhand_processes").value
    end
  end

  private

  def api_dead_size = redis.call("ZCARD", "dead")
end
