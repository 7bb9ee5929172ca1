# frozen_string_literal: true

module Conformance
  # Drop-in mode's figures beside the real gem's, file by file: what
  # docs/compatibility.md shows.
  #
  #   puts Comparison.new(real_gem_summaries, drop_in_summaries).markdown
  class Comparison
    COLUMNS = ["file", "sidekiq gem passes", "drop-in passes", "drop-in failures", "drop-in errors"].freeze

    def initialize(baseline, summaries)
      @baseline = baseline.to_h { |s| [s.file, s] }
      @summaries = summaries
    end

    def rows
      @summaries.map do |s|
        real = @baseline[s.file]
        [s.file, real ? score(real) : "", *(s.loaded? ? [score(s), s.failures, s.errors] : ["did not load: #{s.load_error}", "", ""])]
      end
    end

    def totals
      real = @baseline.values.select(&:loaded?)
      ours = @summaries.select(&:loaded?)
      ["total (#{@summaries.size} files)", "#{real.sum(&:passes)}/#{real.sum(&:runs)}",
        "#{ours.sum(&:passes)}/#{@baseline.values.sum(&:runs)}", ours.sum(&:failures), ours.sum(&:errors)]
    end

    def text = ([COLUMNS] + rows + [totals]).map { |row| row.join("  ") }.join("\n")

    def markdown
      lines = ["| #{COLUMNS.join(" | ")} |", "|---|#{"---:|" * (COLUMNS.size - 1)}"]
      rows.each { |row| lines << "| #{row.map { |cell| cell.to_s.tr("|", "/") }.join(" | ")} |" }
      lines << "| **#{totals.first}** | #{totals[1..].map { |n| "**#{n}**" }.join(" | ")} |"
      lines.join("\n")
    end

    private

    def score(summary) = summary.loaded? ? "#{summary.passes}/#{summary.runs}" : "did not load"
  end
end
