# frozen_string_literal: true

require_relative "e2e_helper"
require "net/http"
require "support/prometheus_parser"

# The real `deckhand` with the operations settings in its config file, and
# `deckhand web`: what Prometheus and a Kubernetes probe would read.
class OperationsTest < Minitest::Test
  include Deckhand::E2EHelpers

  def get(port, path, headers = {})
    Net::HTTP.start("127.0.0.1", port) { |http| http.get(path, headers) }
  end

  # A port whose neighbours at `offsets` are free too, below Linux's
  # ephemeral range (32768 and up), where the kernel hands out the local
  # ports of every client connection the suite opens meanwhile.
  def free_ports_at(offsets)
    loop do
      base = rand(20_000..29_000)
      return base if offsets.all? { |offset| bindable?(base + offset) }
    end
  end

  def bindable?(port)
    TCPServer.new("0.0.0.0", port).close
    true
  rescue Errno::EADDRINUSE, Errno::EACCES
    false
  end

  def test_a_server_serves_its_metrics_and_health_from_the_config_file
    file = config_file(<<~YAML)
      concurrency: 2
      metrics_port: 0
      health_check: "127.0.0.1:0"
    YAML
    cli = boot("-C", file)
    metrics_port = cli.wait_for_log(%r{metrics endpoint at http://0\.0\.0\.0:(\d+)/metrics$})[1].to_i
    health_port = cli.wait_for_log(%r{health endpoint at http://127\.0\.0\.1:(\d+)/live and http://127\.0\.0\.1:\d+/ready$})[1].to_i
    client = Deckhand::Client.new
    5.times { |i| client.push("class" => "E2E::CountJob", "args" => [i]) }
    wait_for(message: "five jobs") { counts.size == 5 }
    families = nil
    wait_for(message: "the scrape to count them") do
      response = get(metrics_port, "/metrics")
      assert_equal "text/plain; version=0.0.4; charset=utf-8", response["content-type"]
      families = Deckhand::PrometheusParser.parse(response.body)
      families.fetch("deckhand_jobs_processed_total").value({"class" => "E2E::CountJob", "queue" => "default"}) == 5
    end
    assert_equal 2, families.fetch("deckhand_process_concurrency").value
    assert_equal "200", get(health_port, "/ready").code
    cli.signal("TSTP")
    wait_for(message: "readiness false while quiet") { get(health_port, "/ready").code == "503" }
    assert_equal "200", get(health_port, "/live").code
    cli.signal("TERM")
    assert_equal 0, cli.wait_exit.exitstatus
  end

  def test_deckhand_web_serves_the_fleet_at_metrics
    3.times { |i| Deckhand::Client.new.push("class" => "E2E::CountJob", "args" => [i], "queue" => "waiting") }
    cli = deckhand("web", "-p", "0", app: nil)
    port = cli.wait_for_log(%r{dashboard at http://127\.0\.0\.1:(\d+)/})[1].to_i
    response = get(port, "/metrics", "accept" => "text/plain;version=0.0.4;q=0.3,*/*;q=0.1")
    assert_equal "200", response.code
    families = Deckhand::PrometheusParser.parse(response.body)
    assert_equal 3, families.fetch("deckhand_queue_size").value({"queue" => "waiting"})
    assert_equal 3, families.fetch("deckhand_enqueued_jobs").value
    cli.signal("TERM")
    cli.wait_exit
  end

  def test_each_worker_of_a_swarm_listens_on_the_port_plus_its_index
    skip_on_jruby("the swarm forks its workers; there it refuses to start (test/unit/swarm/slot_test.rb)")
    port = free_ports_at([0, 1, 10, 11])
    file = config_file("metrics_port: #{port}\nhealth_check: #{port + 10}\n")
    cli = deckhand("-C", file, "-P", "2")
    wait_for(message: "both workers' endpoints") do
      [port, port + 1].all? { |p| get(p, "/metrics").code == "200" } && [port + 10, port + 11].all? { |p| get(p, "/live").code == "200" }
    rescue Errno::ECONNREFUSED
      false
    end
    logged = [port, port + 1].map { |p| cli.output[/metrics endpoint at http:\/\/0\.0\.0\.0:#{p}\/metrics$/] }
    assert logged.all?, "each worker logs its own address"
    cli.signal("TERM")
    assert_equal 0, cli.wait_exit(timeout: 40).exitstatus
  end
end
