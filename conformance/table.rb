# frozen_string_literal: true

module Conformance
  # The per-file table and its totals, as text for a terminal or as Markdown
  # for docs/compatibility.md.
  #
  #   puts Table.new(summaries).text
  #   puts Table.new(summaries).markdown
  class Table
    COLUMNS = %w[file runs passes failures errors skips].freeze

    def initialize(summaries)
      @summaries = summaries
    end

    def rows
      @summaries.map do |s|
        next [s.file, "load error: #{s.load_error}"] unless s.loaded?
        [s.file, s.runs, s.passes, s.failures, s.errors, s.skips] + (s.timed_out ? ["timed out"] : [])
      end
    end

    def totals
      loaded = @summaries.select(&:loaded?)
      sums = %i[runs passes failures errors skips].map { |name| loaded.sum(&name) }
      ["total (#{@summaries.size} files, #{@summaries.size - loaded.size} did not load)", *sums]
    end

    def text
      all = [COLUMNS] + rows + [totals]
      width = all.map { |row| row.first.to_s.size }.max
      all.map do |row|
        next "#{row[0].to_s.ljust(width)}  #{row[1]}" if row.size == 2
        ([row[0].to_s.ljust(width)] + row[1..].map { |cell| cell.to_s.rjust(8) }).join(" ").rstrip
      end.join("\n")
    end

    def markdown
      lines = ["| #{COLUMNS.join(" | ")} |", "|#{"---|" * COLUMNS.size}"]
      rows.each do |row|
        cells = (row.size == 2) ? [row[0], "load error: `#{row[1].sub("load error: ", "").tr("`|", "'/")}`", "", "", "", ""] : row
        lines << "| #{cells.first(COLUMNS.size).join(" | ")} |"
      end
      lines << "| **#{totals.first}** | #{totals[1..].map { |n| "**#{n}**" }.join(" | ")} |"
      lines.join("\n")
    end
  end
end
