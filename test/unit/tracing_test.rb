# frozen_string_literal: true

require "test_helper"
require "opentelemetry/sdk"
require "deckhand/tracing"

# A trace that crosses from the code that pushes a job to the server that runs
# it, recorded by the OpenTelemetry SDK's in-memory exporter.
class TracingTest < Minitest::Test
  EXPORTER = OpenTelemetry::SDK::Trace::Export::InMemorySpanExporter.new
  OpenTelemetry::SDK.configure do |c|
    c.logger = Logger.new(File::NULL)
    c.add_span_processor(OpenTelemetry::SDK::Trace::Export::SimpleSpanProcessor.new(EXPORTER))
  end

  def setup
    super
    EXPORTER.reset
  end

  def traced_config = Deckhand::Tracing.install(new_config(max_retries: 0))

  def span(name) = EXPORTER.finished_spans.find { |s| s.name == name }

  def test_one_trace_from_the_push_to_the_job
    config = traced_config
    jid = nil
    with_server(config) do
      request = OpenTelemetry.tracer_provider.tracer("test").in_span("POST /orders") do
        jid = Deckhand::Client.new(config: config).push("class" => "RecordJob", "args" => ["ünïcode", 1])
        OpenTelemetry::Trace.current_span
      end
      wait_for(message: "the job's span") { span("default process") }
      publish = span("default publish")
      process = span("default process")
      trace_id = request.context.hex_trace_id
      assert_equal [trace_id] * 2, [publish.hex_trace_id, process.hex_trace_id], "one trace id from request to job"
      assert_equal request.context.hex_span_id, publish.hex_parent_span_id
      assert_equal publish.hex_span_id, process.hex_parent_span_id
      assert_equal :producer, publish.kind
      assert_equal :consumer, process.kind
      assert_equal({"messaging.system" => "deckhand", "messaging.operation.type" => "process",
                    "messaging.operation.name" => "process", "messaging.destination.name" => "default",
                    "messaging.message.id" => jid, "deckhand.job.class" => "RecordJob", "deckhand.job.retry_count" => 0},
        process.attributes.to_h)
      assert_equal "publish", publish.attributes["messaging.operation.type"]
      assert_equal [[jid, ["ünïcode", 1]]], Deckhand::TestJobs.runs, "args untouched"
    end
  end

  def test_a_failing_job_marks_its_span
    config = traced_config
    with_server(config) do
      Deckhand::Client.new(config: config).push("class" => "FailJob", "args" => [1], "retry" => 0)
      process = wait_for(message: "the failing job's span") { span("default process") }
      assert_equal OpenTelemetry::Trace::Status::ERROR, process.status.code
      assert_equal "ArgumentError", process.events.first.attributes["exception.type"]
    end
  end

  def test_the_payload_carries_the_w3c_context
    config = traced_config
    OpenTelemetry.tracer_provider.tracer("test").in_span("push") do
      Deckhand::Client.new(config: config).push("class" => "RecordJob", "args" => [1], "queue" => "parked")
    end
    payload = jobs_in("parked").first
    assert_match(/\A00-\h{32}-\h{16}-01\z/, payload["traceparent"])
    assert_equal span("parked publish").hex_span_id, payload["traceparent"].split("-")[2]
  end

  # The scheduler runs client middleware on a due job, outside any span: its
  # second publish span, and the run after it, stay in the first push's trace.
  def test_a_due_scheduled_job_stays_in_the_trace_that_pushed_it
    config = traced_config
    request = OpenTelemetry.tracer_provider.tracer("test").in_span("POST /orders") do
      Deckhand::Client.new(config: config).push("class" => "RecordJob", "args" => [1], "queue" => "parked", "at" => Time.now.to_f + 60)
      OpenTelemetry::Trace.current_span
    end
    first = span("parked publish")
    Deckhand::Server::Chores::Scheduler.new(config: config, store: config.store, process_count: -> { 1 }).enqueue_due(now: Time.now.to_f + 120)
    due = EXPORTER.finished_spans.reverse.find { |s| s.name == "parked publish" }
    refute_equal first.hex_span_id, due.hex_span_id, "a publish span of its own"
    assert_equal [request.context.hex_trace_id, first.hex_span_id], [due.hex_trace_id, due.hex_parent_span_id]
    assert_equal due.hex_span_id, jobs_in("parked").first["traceparent"].split("-")[2], "the run continues from the due publish"
  end
end
