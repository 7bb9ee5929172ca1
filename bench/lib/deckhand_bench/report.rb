# frozen_string_literal: true

require "fileutils"

module DeckhandBench
  # Turns results into the table printed at the end of a run and the
  # Markdown file saved under bench/results/ (with every sample and note).
  #
  #   report = Report.new(results, stamp)
  #   puts report.table
  #   path = report.save("bench/results")        # => "bench/results/2026-11-22-0312-full.md"
  #   report.update_readme("bench/README.md", path)
  class Report
    HEADERS = ["Figure", "Deckhand", "Sidekiq", "Deckhand / Sidekiq", "Target", "Met"].freeze
    README_START = "<!-- latest results: start -->"
    README_END = "<!-- latest results: end -->"

    def initialize(results, stamp)
      @results = results
      @stamp = stamp
    end

    def rows
      figures.map do |figure|
        ratio = @results.ratio(figure.key)
        met = figure.met(@results)
        [figure.title, figure.format(@results.median(figure.key, "deckhand")),
          figure.format(@results.median(figure.key, "sidekiq")), ratio ? Kernel.format("%.2fx", ratio) : "—",
          figure.target || "", figure.target ? {true => "yes", false => "no", nil => "—"}.fetch(met) : ""]
      end
    end

    # The plain-text table for the terminal.
    def table
      all = [HEADERS, *rows]
      widths = HEADERS.each_index.map { |i| all.map { |row| row[i].length }.max }
      line = widths.map { |w| "-" * w }.join("-+-")
      text = all.map { |row| row.each_with_index.map { |cell, i| i.between?(1, 3) ? cell.rjust(widths[i]) : cell.ljust(widths[i]) }.join(" | ") }
      [text.first, line, *text.drop(1), *failure_lines].join("\n")
    end

    def markdown_table
      ["| #{HEADERS.join(" | ")} |", "|---|--:|--:|--:|---|---|", *rows.map { |row| "| #{row.join(" | ")} |" }].join("\n")
    end

    def markdown
      <<~MARKDOWN
        # Deckhand vs Sidekiq: #{@stamp.title}

        #{@stamp.lines.map { |l| "- #{l}" }.join("\n")}

        #{markdown_table}
        #{failure_section}
        ## Samples (one per round)

        #{samples}

        ## Notes

        #{@results.notes.values.map { |n| "- #{n}" }.join("\n")}
        - How each figure is measured: bench/README.md.
      MARKDOWN
    end

    def save(dir)
      FileUtils.mkdir_p(dir)
      path = File.join(dir, "#{@stamp.time.strftime("%Y-%m-%d-%H%M")}-#{@stamp.plan.name}.md")
      File.write(path, markdown)
      path
    end

    # Replaces the table between the README's markers with this one.
    def update_readme(readme, saved)
      text = File.read(readme)
      start = text.index(README_START) or return false
      finish = text.index(README_END, start) or return false
      link = File.join("results", File.basename(saved))
      latest = "#{README_START}\n#{@stamp.title} ([full report](#{link})):\n\n" \
        "#{@stamp.lines.map { |l| "- #{l}" }.join("\n")}\n\n#{markdown_table}\n"
      File.write(readme, text[0...start] + latest + text[finish..])
      true
    end

    private

    # In the issue's numbering (labels start with it), then declaration order.
    def figures = @results.figures.values.each_with_index.sort_by { |figure, i| [figure.label.to_i, i] }.map(&:first)

    def samples
      figures.map do |figure|
        values = %w[deckhand sidekiq].map do |system|
          list = @results.samples(figure.key, system)
          "#{system} #{list.empty? ? "—" : list.map { |v| figure.format(v) }.join(" / ")}"
        end
        "- #{figure.title}: #{values.join("; ")}"
      end.join("\n")
    end

    def failure_lines = @results.failures.map { |scenario, message| "FAILED: #{scenario}: #{message}" }

    def failure_section
      return "" unless @results.failed?
      "\n## Failures\n\n#{@results.failures.map { |s, m| "- #{s}: #{m.gsub(/\s+/, " ")[0, 500]}" }.join("\n")}\n"
    end
  end
end
