# frozen_string_literal: true

require "test_helper"
require_relative "../support/cluster_helpers"
require_relative "../dropin/dropin_helper"

# Sidekiq's API in drop-in mode over cluster mode, in a child process where
# the sidekiq gem is absent and REDIS_URL lists the cluster's nodes
# (inside/test_sidekiq_api.rb holds the assertions).
class ClusterSidekiqApiTest < Minitest::Test
  include Deckhand::DropInHelpers
  include Deckhand::ClusterHelpers

  def test_sidekiqs_sets_queues_and_processes_over_a_cluster = assert_passes_over_the_cluster("inside/test_sidekiq_api.rb")

  def test_sidekiqs_stats_over_a_cluster = assert_passes_over_the_cluster("inside/test_sidekiq_stats.rb")

  private

  def assert_passes_over_the_cluster(file)
    env = {"REDIS_URL" => Deckhand::RedisClusterHarness.urls.join(",")}
    out, status = dropin_ruby(File.expand_path(file, __dir__), env: env)
    assert status.success?, "#{file} failed in drop-in mode over the cluster:\n#{out}"
    assert_match(/\d+ runs, \d+ assertions, 0 failures, 0 errors, 0 skips/, out)
    refute_match(/warning:/, out.lines.grep(%r{#{Regexp.escape(ROOT)}/(lib|test)}o).join, "Ruby warnings from our code")
  end
end
