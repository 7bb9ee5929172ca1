# frozen_string_literal: true

require_relative "e2e_helper"

# `deckhand dev-redis cluster`: a development Redis Cluster in the
# foreground, for trying cluster mode. It prints the REDIS_URL to use; a
# server given that URL runs in cluster mode; Ctrl-C ends every node.
class DevClusterTest < Minitest::Test
  include Deckhand::E2EHelpers

  # The job leaves a file where the test looks: it needs no Redis of its own.
  APP_SOURCE = <<~RUBY
    require "deckhand"
    class TouchJob
      include Deckhand::Job
      def perform(path) = File.write(path, "ran")
    end
  RUBY

  def test_it_prints_a_cluster_url_a_server_runs_on_and_ends_every_node_on_interrupt
    dir = Dir.mktmpdir("deckhand-dev-cluster")
    (@config_dirs ||= []) << dir
    app = File.join(dir, "app.rb")
    File.write(app, APP_SOURCE)
    dev = deckhand("dev-redis", "cluster", "2", app: nil)
    url = dev.wait_for_log(/^REDIS_URL=(\S+)$/)[1]
    nodes = url.split(",")
    assert_equal 2, nodes.size
    assert(nodes.all? { |node| node.match?(%r{\Aredis://127\.0\.0\.1:\d+\z}) }, url)

    server = deckhand("-c", "2", app: app, env: {"REDIS_URL" => url})
    server.wait_for_log(/started as/)
    config = Deckhand::Config.new(redis: {cluster: nodes})
    store = config.store
    assert_equal "{queue:default}", store.layout.queue("default"), "cluster mode"
    ran = File.join(dir, "ran")
    Deckhand::Client.new(config: config).push("class" => "TouchJob", "args" => [ran])
    wait_for(message: "the job run on the cluster") { File.exist?(ran) }
    server.signal("TERM")
    assert_equal 0, server.wait_exit(timeout: 30).exitstatus, server.output
    store.shutdown

    dev.signal("INT")
    assert_equal 0, dev.wait_exit(timeout: 30).exitstatus, dev.output
    nodes.each { |node| refute Deckhand::DevRedis.answering?(url: node), "#{node} still answers" }
  end
end
