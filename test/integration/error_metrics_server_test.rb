# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

# A real server's failures reach the per-minute failures by error class
# with its next heartbeat; its successes add none.
class ErrorMetricsServerTest < Minitest::Test
  def test_a_servers_failures_are_counted_by_error_class
    with_server(new_config(heartbeat_interval: 0.05)) do
      Deckhand::Client.push_bulk("class" => "FailJob", "args" => [[1], [2], [3]])
      Deckhand::Client.push_bulk("class" => "RecordJob", "args" => (1..5).to_a.zip)
      wait_for(message: "the failures counted") do
        Deckhand::API.new(Deckhand.config).failures_by_error.series.assoc("ArgumentError")&.last&.sum == 3
      end
    end
    failures = Deckhand::API.new(Deckhand.config).failures_by_error
    assert_equal ["ArgumentError"], failures.series.map(&:first), "only the failures' class; successes add nothing"
  end
end
