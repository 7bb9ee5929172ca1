# frozen_string_literal: true

require "test_helper"
require "support/prometheus_parser"
require "deckhand/operations"

# The exposition writer against a strict reader of the format, and the
# reader against what the format forbids (so a passing scrape test means
# something).
class ExpositionTest < Minitest::Test
  Parser = Deckhand::PrometheusParser

  def test_labels_with_quotes_backslashes_newlines_and_unicode_round_trip
    out = Deckhand::Operations::Exposition.new
    odd = "a\"b\\c\nd é ☃ {x=\"y\"}"
    out.family("t_gauge", :gauge, "help with \\ and\nnewline")
    out.sample("t_gauge", {"queue" => odd}, 1.5)
    out.sample("t_gauge", {"queue" => "nan"}, Float::NAN)
    out.sample("t_gauge", {"queue" => "inf"}, Float::INFINITY)
    out.sample("t_gauge", {"queue" => "tiny"}, 1.0e-7)
    families = Parser.parse(out.to_s)
    gauge = families.fetch("t_gauge")
    assert_equal "help with \\ and\nnewline", gauge.help
    assert_equal 1.5, gauge.value({"queue" => odd})
    assert gauge.value({"queue" => "nan"}).nan?
    assert_equal Float::INFINITY, gauge.value({"queue" => "inf"})
    assert_equal 1.0e-7, gauge.value({"queue" => "tiny"})
  end

  def test_histograms_are_cumulative_with_inf_sum_and_count
    registry = Deckhand::Operations::Registry.new
    [0.001, 0.02, 0.02, 3.0, 1000.0].each { |s| registry.job("A", "q", s, false) }
    registry.job("A", "q", 0.2, true)
    out = Deckhand::Operations::Exposition.new
    registry.write(out)
    families = Parser.parse(out.to_s)
    histogram = families.fetch("deckhand_job_execution_seconds")
    labels = {"class" => "A", "queue" => "q", "outcome" => "success"}
    assert_equal 5, histogram.value(labels, "deckhand_job_execution_seconds_count")
    assert_equal 1, histogram.value(labels.merge("le" => "0.005"), "deckhand_job_execution_seconds_bucket")
    assert_equal 3, histogram.value(labels.merge("le" => "0.025"), "deckhand_job_execution_seconds_bucket")
    assert_equal 4, histogram.value(labels.merge("le" => "300.0"), "deckhand_job_execution_seconds_bucket")
    assert_equal 5, histogram.value(labels.merge("le" => "+Inf"), "deckhand_job_execution_seconds_bucket")
    assert_in_delta 1003.041, histogram.value(labels, "deckhand_job_execution_seconds_sum"), 1e-9
    failure = {"class" => "A", "queue" => "q", "outcome" => "failure"}
    assert_equal 1, histogram.value(failure, "deckhand_job_execution_seconds_count")
    assert_equal 0, histogram.value(failure.merge("le" => "0.1"), "deckhand_job_execution_seconds_bucket")
    assert_equal 1, histogram.value(failure.merge("le" => "0.25"), "deckhand_job_execution_seconds_bucket")
    assert_in_delta 0.2, histogram.value(failure, "deckhand_job_execution_seconds_sum"), 1e-9
    assert_equal 6, families.fetch("deckhand_jobs_processed_total").value(labels.except("outcome"))
    assert_equal 1, families.fetch("deckhand_jobs_failed_total").value(labels.except("outcome"))
  end

  def test_label_sets_are_bounded
    registry = Deckhand::Operations::Registry.new
    (Deckhand::Operations::Registry::MAX_SERIES + 20).times { |i| registry.job("Class#{i}", "q", 0.01, false) }
    out = Deckhand::Operations::Exposition.new
    registry.write(out)
    processed = Parser.parse(out.to_s).fetch("deckhand_jobs_processed_total")
    assert_equal Deckhand::Operations::Registry::MAX_SERIES + 1, processed.samples.size
    assert_equal 20, processed.value({"class" => "other", "queue" => "other"})
  end

  def test_the_writer_refuses_names_outside_the_rules
    out = Deckhand::Operations::Exposition.new
    assert_raises(ArgumentError) { out.family("bad-name", :gauge, "x") }
    assert_raises(ArgumentError) { out.sample("ok", {"bad-label" => "x"}, 1) }
    assert_raises(ArgumentError) { out.sample("ok", {"__reserved" => "x"}, 1) }
  end

  def test_the_parser_rejects_what_the_format_forbids
    {
      "no final newline" => "# TYPE a gauge\na 1",
      "bad escape" => "# TYPE a gauge\na{l=\"\\t\"} 1\n",
      "type after samples" => "a 1\n# TYPE a gauge\n",
      "split family" => "# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\na{x=\"1\"} 2\n",
      "duplicate series" => "# TYPE a gauge\na 1\na 2\n",
      "bad value" => "# TYPE a gauge\na one\n",
      "histogram sample of no histogram kind" => "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\nh 3\n",
      "bucket without le" => "# TYPE h histogram\nh_bucket 1\n",
      "histogram without +Inf" => "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n",
      "histogram not cumulative" => "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",
      "bad metric name" => "# TYPE 1a gauge\n",
      "unterminated label" => "# TYPE a gauge\na{l=\"x} 1\n"
    }.each do |what, text|
      assert_raises(Parser::ParseError, what) { Parser.parse(text) }
    end
  end
end
