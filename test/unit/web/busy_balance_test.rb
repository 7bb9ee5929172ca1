# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# The Busy page shows what auto-balance decided for each process
# (docs/auto-balance.md), from the process's heartbeat.
class WebBusyBalanceTest < Minitest::Test
  include Deckhand::WebHelpers

  class CrunchJob
    include Deckhand::Job

    def perform
      start = Deckhand::Server::Balance::ClassTimes.cpu_ms
      nil while Deckhand::Server::Balance::ClassTimes.cpu_ms - start < 2
    end
  end

  class PauseJob
    include Deckhand::Job

    def perform = sleep(0.02)
  end

  def test_an_auto_balanced_process_shows_its_capped_queue_and_its_classes
    Deckhand::Client.push_bulk("class" => CrunchJob.name, "queue" => "cpu", "args" => Array.new(3000) { [] })
    Deckhand::Client.push_bulk("class" => PauseJob.name, "queue" => "io", "args" => Array.new(3000) { [] })
    config = new_config(queues: %w[cpu io], concurrency: 6, auto_balance: true, heartbeat_interval: 0.2)
    with_server(config) do
      page = wait_for(timeout: 60, message: "the capped queue on the Busy page") do
        (body = get("/busy").body).include?("queue cpu capped") && body
      end
      cores = Deckhand::Server::Balance::Cores.usable
      assert_match(%r{auto-balance:\s*<span class="badge" title="CPU-bound: at most #{cores} running at once">queue cpu capped \d+/#{cores}</span>}, page)
      assert_match(/#{Regexp.escape(CrunchJob.name)} \d+% \(CPU-bound\)/, page)
      assert_match(/#{cores} usable cores?/, page)
    end
  end

  def test_a_process_without_auto_balance_shows_none
    with_server(new_config(heartbeat_interval: 0.2)) do
      page = wait_for(message: "the process on the Busy page") { (body = get("/busy").body).include?("Last beat") && body }
      refute_includes page, "auto-balance"
    end
  end
end
