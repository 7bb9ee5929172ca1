# frozen_string_literal: true

require "test_helper"
require_relative "../../bench/lib/deckhand_bench/runner"

class BenchReportTest < Minitest::Test
  Bench = DeckhandBench

  def test_median_and_nearest_rank_percentile
    assert_equal 2, Bench::Stats.median([3, 1, 2])
    assert_in_delta 2.5, Bench::Stats.median([4, 1, 3, 2])
    assert_equal 99, Bench::Stats.percentile((1..100).to_a.shuffle, 99)
    assert_equal 10, Bench::Stats.percentile([10], 50)
    assert_nil Bench::Stats.median([])
  end

  def test_figures_format_with_thousands_separators_and_fixed_digits
    rate = Bench::Figure.new(key: :r, label: "Rate", unit: "jobs/s", digits: 0)
    ms = Bench::Figure.new(key: :m, label: "Latency", unit: "ms", digits: 2)

    assert_equal "1,234,568", rate.format(1_234_567.8)
    assert_equal "999", rate.format(999.4)
    assert_equal "0.50", ms.format(0.5)
    assert_equal "—", ms.format(nil)
    assert_equal "∞", rate.format(Float::INFINITY)
    assert_equal "Rate (jobs/s)", rate.title
  end

  def test_rows_show_medians_the_ratio_and_whether_the_target_is_met
    results = Bench::Results.new
    results.declare(Bench::Figure.new(key: :noop_10, label: "1. Throughput", unit: "jobs/s", digits: 0,
      target: ">= 2x Sidekiq", check: ->(r) { r.ratio(:noop_10)&.>=(2) }))
    [30_000, 10_000, 20_000].each { |v| results.add(:noop_10, "deckhand", v) }
    [9_000, 11_000, 10_000].each { |v| results.add(:noop_10, "sidekiq", v) }

    assert_equal [["1. Throughput (jobs/s)", "20,000", "10,000", "2.00x", ">= 2x Sidekiq", "yes"]], report(results).rows
    results.add(:noop_10, "sidekiq", 12_000) # median 10,500: under 2x

    assert_equal "no", report(results).rows.first.last
  end

  def test_a_target_that_needs_a_missing_figure_is_not_judged
    results = Bench::Results.new
    results.declare(Bench::Figure.new(key: :x, label: "7. Mixed", unit: "s", digits: 1,
      target: "<= 0.6x", check: ->(r) { r.ratio(:x)&.<=(0.6) }))
    results.add(:x, "deckhand", 1.0)

    assert_equal ["7. Mixed (s)", "1.0", "—", "—", "<= 0.6x", "—"], report(results).rows.first
  end

  def test_rows_follow_the_scenario_numbers
    results = Bench::Results.new
    %w[4 1 2].each { |n| results.declare(Bench::Figure.new(key: :"f#{n}", label: "#{n}. F", digits: 0)) }

    assert_equal ["1. F", "2. F", "4. F"], report(results).rows.map(&:first)
  end

  def test_update_readme_replaces_only_the_text_between_the_markers
    Dir.mktmpdir do |dir|
      readme = File.join(dir, "README.md")
      File.write(readme, "intro\n#{Bench::Report::README_START}\nold table\n#{Bench::Report::README_END}\noutro\n")
      results = Bench::Results.new
      results.declare(Bench::Figure.new(key: :a, label: "1. A", digits: 0))
      results.add(:a, "deckhand", 5)

      assert report(results).update_readme(readme, File.join(dir, "results", "2026-01-01-0000-full.md"))
      text = File.read(readme)

      assert_match(/\Aintro\n/, text)
      assert_match(/outro\n\z/, text)
      refute_includes text, "old table"
      assert_includes text, "| 1. A | 5 | — | — |  |  |"
      assert_includes text, "(results/2026-01-01-0000-full.md)"
    end
  end

  private

  def report(results)
    stamp = Bench::Stamp.new(time: Time.utc(2026, 1, 1), ruby: "ruby", yjit: false, server: "redis 7.0.15", cores: 2,
      cpu: nil, load: nil, systems: ["Deckhand"], plan: Bench::Plan.quick, commit: nil)
    Bench::Report.new(results, stamp)
  end
end
