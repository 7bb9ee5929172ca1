# frozen_string_literal: true

require "test_helper"
require "deckhand/batch"
require_relative "../support/cluster_helpers"
require_relative "../support/cut_reply_proxy"

# Pushes in cluster mode whose connection to the queue's primary is cut at
# the third of five slices: a proxy stands in front of that primary, which
# announces the proxy's port to clients (cluster-announce-port), so the
# cluster client reaches it through the proxy. Each slot a push writes to
# has its own transaction and mark; Redis is asked, and the push succeeds
# whole or says exactly which jobs are queued and which are not.
class ClusterPushCutReplyTest < Minitest::Test
  include Deckhand::ClusterHelpers

  JOBS = 5_000

  def setup
    super
    @queue_key = keys.queue("default") # placed now, through a store that is not proxied
    @node = Deckhand::RedisClusterHarness.cluster.primary_for(@queue_key)
    @proxy = Deckhand::CutReplyProxy.start(port: @node.port)
    announce(@proxy.port)
    Deckhand.config = new_config
  end

  def teardown
    announce(0) if @node
    @proxy&.stop
    super
  end

  # Has the node tell clients `port` (0: its own), and waits until every
  # node's map says so (the cluster client reads the map from any node).
  def announce(port)
    node_call(@node, "CONFIG", "SET", "cluster-announce-port", port.to_s)
    shown = port.zero? ? @node.port : port
    wait_for(message: "the cluster to announce port #{shown}") do
      Deckhand::RedisClusterHarness.cluster.nodes.select(&:running?).all? do |node|
        node_call(node, "CLUSTER", "SLOTS").any? { |_, _, (_, announced)| announced == shown } &&
          node_call(node, "CLUSTER", "NODES").include?(":#{shown}@")
      end
    end
  end

  def args = Array.new(JOBS) { |i| [i] }

  def nth_push(nth)
    seen = 0
    ->(command) { command.first.casecmp?("LPUSH") && (seen += 1) == nth }
  end

  def queued = jobs_in("default").reverse

  def assert_each_job_once
    jobs = jobs_in("default")
    assert_equal (0...JOBS).to_a, jobs.map { |job| job["args"].first }.sort, "every job once"
    assert_equal JOBS, jobs.map { |job| job["jid"] }.uniq.size
  end

  def test_a_bulk_slice_whose_reply_was_cut_after_redis_ran_it_is_no_failure
    @proxy.cut_reply_to(&nth_push(3))
    jids = RecordJob.perform_bulk(args)
    assert_equal 1, @proxy.cuts
    assert_equal queued.map { |job| job["jid"] }, jids
    assert_each_job_once
  end

  def test_a_bulk_slice_that_never_reached_redis_is_told_exactly
    @proxy.cut_request_at(&nth_push(3))
    error = assert_raises(Deckhand::PushIncomplete) { RecordJob.perform_bulk(args) }
    assert_kind_of Deckhand::ConnectionError, error
    assert_kind_of RedisClient::ConnectionError, error.cause, "the Redis error behind it"
    assert_equal queued.map { |job| job["jid"] }, error.pushed
    assert_equal 2_000, error.pushed.size
    assert_equal args.drop(2_000), error.unpushed_args
    RecordJob.perform_bulk(error.unpushed_args)
    assert_each_job_once
  end

  def test_a_bulk_slice_redis_has_not_answered_about_stays_in_doubt_until_it_does
    choose = nth_push(3)
    @proxy.cut_reply_to { |command| choose.call(command).tap { |chosen| @proxy.refuse = true if chosen } }
    error = assert_raises(Deckhand::PushIncomplete) { RecordJob.perform_bulk(args) }
    assert_equal [2_000, 1_000, 2_000], [error.pushed.size, error.in_doubt.size, error.unpushed.size]
    @proxy.refuse = false
    wait_for(message: "Redis to answer about the slice") { error.recheck }
    assert_equal queued.map { |job| job["jid"] }, error.pushed
    RecordJob.perform_bulk(error.unpushed_args)
    assert_each_job_once
  end

  def test_reliable_push_holds_a_slice_in_doubt_and_never_writes_it_twice
    config = new_config(reliable_push: true, reliable_push_limit: 10_000)
    Deckhand.config = config
    choose = nth_push(3)
    @proxy.cut_reply_to { |command| choose.call(command).tap { |chosen| @proxy.refuse = true if chosen } }
    jids = RecordJob.perform_bulk(args)
    buffer = Deckhand::Client::PushBuffer.for(config)
    assert_equal 3_000, buffer.size, "the slice in doubt and those behind it"
    @proxy.refuse = false
    wait_for(message: "the held slices written") { buffer.size.zero? }
    assert_equal queued.map { |job| job["jid"] }, jids
    assert_each_job_once
  end

  def test_a_batch_s_slice_that_never_reached_redis_is_pushed_again_in_its_batch
    config = new_config
    Deckhand::Batch.install(config)
    Deckhand.config = config
    @proxy.cut_request_at(&nth_push(3))
    batch = Deckhand::Batch.new
    error = assert_raises(Deckhand::PushIncomplete) { batch.jobs { RecordJob.perform_bulk(args) } }
    assert_equal queued.map { |job| job["jid"] }, error.pushed
    assert_equal 3_000, error.unpushed.size
    assert_equal [3_000, 1], [batch.status.total, cluster.call("HGET", Deckhand::Store::Layout::ClusterBatches.batch(batch.bid), "hold").to_i],
      "the third slice's jids registered (not its jobs), the batch held"
    batch.jobs { error.unpushed.each { |job| Deckhand::Client.push(job) } }
    assert_each_job_once
    assert_equal [JOBS, JOBS], [batch.status.total, batch.status.pending], "each job counted once"
    assert_equal 0, cluster.call("HGET", Deckhand::Store::Layout::ClusterBatches.batch(batch.bid), "hold").to_i
  end
end
