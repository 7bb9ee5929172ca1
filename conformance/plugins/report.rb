# frozen_string_literal: true

require_relative "../comparison"

module Conformance
  module Plugins
    # What bin/conformance --plugin prints: per plugin, its files' figures on
    # the sidekiq gem beside drop-in mode's (Conformance::Comparison), then
    # one line per plugin; with --failures, each test drop-in mode fails,
    # marked where the sidekiq gem fails it too.
    #
    #   puts Report.new(Runner.new(options).run("all", nil), markdown: true, failures: true)
    class Report
      COLUMNS = ["plugin", "why it is here", "sidekiq gem passes", "drop-in passes"].freeze

      def initialize(rows, markdown:, failures:)
        @rows = rows
        @markdown = markdown
        @failures = failures
      end

      def to_s
        parts = @rows.map do |plugin, baseline, summaries|
          table = Comparison.new(baseline, summaries)
          "#{@markdown ? "#### " : "== "}#{plugin.name} #{plugin.version}\n\n#{@markdown ? table.markdown : table.text}"
        end
        parts << totals
        parts << problems if @failures
        parts.join("\n\n")
      end

      private

      def totals
        rows = @rows.map do |plugin, baseline, summaries|
          runs = tests(baseline, summaries)
          [plugin.name + " " + plugin.version, plugin.why, "#{passes(baseline)}/#{runs}", "#{passes(summaries)}/#{runs}"]
        end
        return ([COLUMNS] + rows).map { |row| row.join("  ") }.join("\n") unless @markdown
        (["| #{COLUMNS.join(" | ")} |", "|---|---|---:|---:|"] + rows.map { |row| "| #{row.join(" | ")} |" }).join("\n")
      end

      def passes(summaries) = summaries.select(&:loaded?).sum(&:passes)

      # Each file's tests as the run that reached them counts them (a file
      # that did not load in one run counts none there).
      def tests(baseline, summaries)
        counts = summaries.to_h { |s| [s.file, s.runs] }
        baseline.each { |s| counts[s.file] = [counts.fetch(s.file, 0), s.runs].max }
        counts.values.sum
      end

      def problems
        @rows.flat_map do |plugin, baseline, summaries|
          failing = baseline.to_h { |s| [s.file, s.problems.map(&:first)] }
          summaries.flat_map do |s|
            next ["#{plugin.name}: #{s.file}: did not load: #{s.load_error}"] unless s.loaded?
            s.problems.map do |name, reason|
              both = failing.fetch(s.file, []).include?(name) ? " (fails on the sidekiq gem too)" : ""
              "#{plugin.name}: #{s.file}: #{name}: #{reason}#{both}"
            end
          end
        end.join("\n")
      end
    end
  end
end
