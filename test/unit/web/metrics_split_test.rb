# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# The metrics pages show the successful runs' timings, the failures' apart.
class WebMetricsSplitTest < Minitest::Test
  include Deckhand::WebHelpers

  def record(klass, successes:, failures:)
    tally = Deckhand::Store::Records::ExecutionMetrics::Tally.new
    successes.times { tally.record(klass, 2000.0, false) }
    failures.times { tally.record(klass, 0.06, true) }
    Deckhand::Store::Records::ExecutionMetrics.write(Deckhand.config.store, tally.take)
  end

  def test_a_fast_failure_does_not_hide_a_slow_success
    record("SlowWhenItWorks", successes: 10, failures: 90)
    row = get("/metrics").body[%r{<tr>\s*<td><a href="/metrics/SlowWhenItWorks.*?</tr>}m]
    cells = row.scan(%r{<td class="num[^"]*">(.*?)</td>}).flatten
    assert_equal ["100", "90", "2.0 s"], cells.first(3), "executions, failed, average of the successes"
    assert_match(/\A2\.\d+ s\z/, cells[3], "p50 of the successes")
    assert_match(%r{\A0\.0\d ms / 0\.\d+ ms\z}, cells[6], "the failures' p50 / p95")
    page = get("/metrics/SlowWhenItWorks").body
    assert_match(%r{p50 \(succeeded\)</span><span class="value">2\.\d+ s}, page)
    assert_match(%r{p50 \(failed\)</span><span class="value">0\.0\d ms}, page)
  end
end
