# frozen_string_literal: true

require "test_helper"
require_relative "../../../support/web/web_helpers"
require "cgi"

# The metrics page lists the classes whose name holds what is typed in its filter.
class WebMetricsFilterTest < Minitest::Test
  include Deckhand::WebHelpers

  def setup
    super
    tally = Deckhand::Store::Records::ExecutionMetrics::Tally.new
    %w[Billing::InvoiceJob Billing::RefundJob ReportJob].each { |klass| tally.record(klass, 12.0, false) }
    Deckhand::Store::Records::ExecutionMetrics.write(Deckhand.config.store, tally.take)
  end

  def listed(body) = body.scan(%r{<td><a href="/metrics/([^"?]+)\?}).flatten.map { |name| CGI.unescape(name) }

  def test_the_filter_keeps_the_classes_whose_name_holds_it_in_any_case
    assert_equal %w[Billing::InvoiceJob Billing::RefundJob ReportJob], listed(get("/metrics").body).sort
    page = get("/metrics?q=billing&period=4h").body
    assert_equal %w[Billing::InvoiceJob Billing::RefundJob], listed(page).sort
    assert_includes page, %(name="q" value="billing")
    assert_includes page, %(href="/metrics?period=24h&amp;q=billing"), "a period keeps the filter"
    assert_includes get("/metrics?q=nothing").body, "No job class holding"
  end

  def test_what_is_typed_is_shown_escaped
    page = get("/metrics?q=%3Cscript%3E").body
    refute_includes page, "<script>"
    assert_includes page, "&lt;script&gt;"
  end
end
