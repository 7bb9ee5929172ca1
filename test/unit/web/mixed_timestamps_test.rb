# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# Jobs stamped as Sidekiq 7 stamps them (Float seconds, drop-in mode's
# default) and as Sidekiq 8 does (Integer milliseconds) side by side in one
# queue: the API, the dashboard and the server read both.
class MixedTimestampsTest < Minitest::Test
  include Deckhand::WebHelpers

  def setup
    super
    Deckhand.config = new_config(concurrency: 2, heartbeat_interval: 0.1, timeout: 2)
    @now = Time.now.to_f
    @millis_at = ((@now - 300) * 1000).to_i
    @float_at = @now - 120.25
    # LPUSH puts the newest on the left: the millisecond job is the oldest, next to run.
    push_raw("m" * 24, @millis_at)
    push_raw("f" * 24, @float_at)
  end

  def push_raw(jid, at)
    job = {"class" => "RecordJob", "args" => [jid], "jid" => jid, "queue" => "mixed", "retry" => true, "created_at" => at, "enqueued_at" => at}
    redis.call("SADD", "queues", "mixed")
    redis.call("LPUSH", "queue:mixed", JSON.generate(job))
  end

  def test_the_api_reads_both_formats
    queue = api.queue("mixed")
    assert_in_delta 300, queue.latency, 5, "the oldest job, stamped in milliseconds"
    times = queue.jobs.to_h { |record| [record.jid, record.enqueued_at.to_f] }
    assert_in_delta @millis_at / 1000.0, times.fetch("m" * 24), 0.001
    assert_in_delta @float_at, times.fetch("f" * 24), 0.001
  end

  def test_the_queue_page_shows_both_times
    body = get("/queues/mixed").body
    [Time.at(@millis_at / 1000, @millis_at % 1000, :millisecond), Time.at(@float_at)].each do |at|
      assert_includes body, %(<time datetime="#{at.utc.iso8601(3)}"), "the job enqueued at #{at}"
    end
    assert_includes body, ">5 min ago</time>"
    assert_includes body, ">2 min ago</time>"
  end

  def test_the_server_runs_both
    with_server(Deckhand.config.tap { |config| config.queues = ["mixed"] }) do
      wait_for(message: "2 runs") { Deckhand::TestJobs.runs.size == 2 }
    end
    assert_equal ["f" * 24, "m" * 24], Deckhand::TestJobs.runs.map { |_, args| args.first }.sort
  end
end
