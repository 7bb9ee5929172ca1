# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require_relative "../support/cluster_helpers"
require_relative "doc_examples"

# Where the cluster guide's examples define and find their names.
module ClusterDocsSandbox; end

# The cluster guide's examples (docs/cluster.md), run against the harness'
# Redis Cluster: three primaries, one replica each.
class DocsClusterExamplesTest < Minitest::Test
  include Deckhand::ClusterHelpers

  def setup
    super
    ClusterDocsSandbox.const_set(:ReportJob, Class.new { include Deckhand::Job })
  end

  def teardown
    ClusterDocsSandbox.constants.each { |name| ClusterDocsSandbox.send(:remove_const, name) }
    (ClusterDocsSandbox.singleton_methods - [:name]).each { |name| ClusterDocsSandbox.singleton_class.send(:remove_method, name) }
    super
  end

  def run_example(name, code: nil)
    block = Deckhand::DocExamples.fetch(name)
    ClusterDocsSandbox.module_eval(code || block.code, block.path, block.line)
  end

  def report_job = ClusterDocsSandbox::ReportJob

  # The guide's addresses are an example's; the same two forms, given the
  # harness' nodes instead, reach the real cluster.
  def test_both_ways_to_name_the_cluster
    run_example("cluster-configure")
    assert_equal({cluster: true, url: "rediss://:secret@clustercfg.example.cache.amazonaws.com:6379"}, Deckhand.config.redis)

    code = Deckhand::DocExamples.fetch("cluster-configure").code
    listed = code.lines.first(2).join.gsub(/\["redis:.*"\]/, Deckhand::RedisClusterHarness.urls.inspect) + "end\n"
    Deckhand.config = new_config
    run_example("cluster-configure", code: listed)
    assert_equal Deckhand::RedisClusterHarness.urls, Deckhand.config.redis[:cluster]
    report_job.perform_async(1)
    assert_equal [[1]], jobs_in("default").map { |job| job["args"] }

    one_node = code.lines.values_at(0, 3, 4).join.sub(%r{rediss://\S+6379}, Deckhand::RedisClusterHarness.urls.last)
    Deckhand.config = new_config
    run_example("cluster-configure", code: one_node)
    report_job.perform_async(2)
    assert_equal [[1], [2]], jobs_in("default").map { |job| job["args"] }.sort, "the client found the other nodes"
  end

  def test_placement_lists_each_primarys_queues_and_share
    %w[default mail reports critical low bulk].each { |queue| report_job.set(queue: queue).perform_async }
    primaries = run_example("cluster-placement")
    assert_equal 3, primaries.size
    primaries.each do |address, queues, share|
      assert_match(/\A127\.0\.0\.1:\d+\z/, address)
      assert_equal 2, queues.size, "six queues, two on each primary"
      assert_in_delta 0.333, share, 0.001
    end
    assert_equal %w[bulk critical default low mail reports], primaries.flat_map { |p| p[1] }.sort
  end

  def test_a_push_waits_for_one_replica
    run_example("cluster-push-replicas")
    assert_equal [1, 0.5], [Deckhand.config.push_replicas, Deckhand.config.push_replicas_timeout]
    jid = report_job.perform_async(1)
    assert_equal [jid], jobs_in("default").map { |job| job["jid"] }, "each primary's replica acknowledged it in time"
  end

  # The harness' primaries have one replica each: waiting for two cannot be met.
  def test_a_push_short_of_replicas_is_queued_and_logged
    Deckhand.config = new_config(push_replicas: 2, push_replicas_timeout: 0.05)
    logged = []
    logger = Object.new
    logger.define_singleton_method(:warn) { |message| logged << message }
    ClusterDocsSandbox.define_singleton_method(:logger) { logger }
    ClusterDocsSandbox.define_singleton_method(:id) { 7 }
    run_example("cluster-not-replicated")
    jobs = jobs_in("default")
    assert_equal [[7]], jobs.map { |job| job["args"] }, "queued all the same"
    assert_equal 1, logged.size
    assert_match(/only 1 of 2 replicas acknowledged it/, logged.first)
  end
end
