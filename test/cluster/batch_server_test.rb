# frozen_string_literal: true

require "test_helper"
require "deckhand/batch"
require_relative "../support/cluster_helpers"

# A batch run by an embedded server in cluster mode: its jobs in one queue,
# its callbacks in another on another primary (a capsule per queue), each
# job's outcome recorded by the batch middleware, each callback run once.
class ClusterBatchServerTest < Minitest::Test
  include Deckhand::ClusterHelpers

  class Work
    include Deckhand::Job

    deckhand_options queue: "mail"

    RAN = Thread::Queue.new

    def perform(label) = RAN << label
  end

  # Dies on its first failure.
  class Doomed
    include Deckhand::Job

    deckhand_options queue: "mail", retry: 0

    def perform(label) = raise(ArgumentError, "#{label} is doomed")
  end

  class Callbacks
    FIRED = Thread::Queue.new

    def on_death(status, options) = FIRED << ["death", status.bid, options["name"], status.dead_count]

    def on_complete(status, options) = FIRED << ["complete", status.bid, options["name"]]

    def on_success(status, options) = FIRED << ["success", status.bid, options["name"], status.pending]
  end

  def setup
    super
    [Work::RAN, Callbacks::FIRED].each(&:clear)
    @pusher = Deckhand::Client.pusher
    Deckhand::Client.pusher = nil # straight to Redis, whatever an earlier test loaded
  end

  def teardown
    Deckhand::Client.pusher = @pusher
    super
  end

  def server_config
    config = new_config(concurrency: 3, queues: ["mail"])
    config.capsule("callbacks", concurrency: 1, queues: ["reports"])
    Deckhand::Batch.install(config, callback_queue: "reports")
    Deckhand.config = config
  end

  def drained(queue) = Array.new(queue.size) { queue.pop }

  def test_a_server_runs_a_batch_and_its_callbacks_once
    harness = Deckhand::RedisClusterHarness.cluster
    refute_equal harness.primary_for(keys.queue("mail")).port, harness.primary_for(keys.queue("reports")).port
    config = server_config
    batch = Deckhand::Batch.new
    batch.on(:complete, Callbacks, "name" => "import")
    batch.on(:success, Callbacks, "name" => "import")
    batch.jobs { 20.times { |i| Work.perform_async(i) } }
    with_server(config) do
      wait_for(message: "both callbacks") { Callbacks::FIRED.size >= 2 }
      wait_for(message: "the callback jobs counted by the batch") { batch.status.success? }
    end
    assert_equal (0..19).to_a, drained(Work::RAN).sort
    assert_equal [["complete", batch.bid, "import"], ["success", batch.bid, "import", 0]], drained(Callbacks::FIRED)
    assert_equal [0, 0], [cluster.call("LLEN", keys.queue("mail")), cluster.call("LLEN", keys.queue("reports"))]
    assert_equal 0, cluster.call("ZCARD", Deckhand::Store::Layout::ClusterBatches::OUTBOX)
  end

  def test_a_job_that_dies_fires_the_death_and_complete_callbacks_once
    config = server_config
    batch = Deckhand::Batch.new
    %i[death complete success].each { |event| batch.on(event, Callbacks, "name" => "doomed") }
    batch.jobs do
      Work.perform_async("fine")
      Doomed.perform_async("x")
    end
    with_server(config) do
      wait_for(message: "the death and complete callbacks") { Callbacks::FIRED.size >= 2 }
      wait_for(message: "the dead job in its queue's dead set") { cluster.call("ZCARD", keys.dead_set("mail")) == 1 }
    end
    assert_equal [["complete", batch.bid, "doomed"], ["death", batch.bid, "doomed", 1]], drained(Callbacks::FIRED).sort
    status = Deckhand::Batch::Status.new(batch.bid)
    assert status.complete?
    refute status.success?
    assert_equal ["x is doomed"], status.failure_info.map { |failure| failure["error_message"] }
  end
end
