# frozen_string_literal: true

require "json"
require_relative "../summary"

module Conformance
  module Plugins
    # One spec file's run, read from RSpec's JSON report, as a
    # Conformance::Summary (runs: examples, skips: pending ones). A file
    # whose examples never ran (it failed to load, or a before(:suite) hook
    # failed) has a load error: RSpec's first message, else the output's.
    #
    #   RspecResult.parse("spec/foo_spec.rb", report_json, output, exit_status: 1)
    #   # => #<struct Conformance::Summary file="spec/foo_spec.rb", runs=12, failures=1, ...>
    module RspecResult
      module_function

      def parse(file, report, output, exit_status:, timed_out: false)
        data = report && JSON.parse(report)
        return not_run(file, "timed out", timed_out) if timed_out && data.nil?
        return not_run(file, Summary.first_error_line(output, exit_status), timed_out) if data.nil?
        summary = data.fetch("summary")
        if summary["example_count"].zero? && summary["errors_outside_of_examples_count"].to_i.positive?
          return not_run(file, first_message(data) || Summary.first_error_line(output, exit_status), timed_out)
        end
        failed = data.fetch("examples").select { |example| example["status"] == "failed" }
        Summary.new(file: file, runs: summary["example_count"], failures: failed.size, errors: 0,
          skips: summary["pending_count"], problems: failed.map { |example| problem(example) }, load_error: nil,
          timed_out: timed_out)
      rescue JSON::ParserError => e
        not_run(file, "unreadable RSpec report (#{e.message[0, 80]})", timed_out)
      end

      def not_run(file, reason, timed_out)
        Summary.new(file: file, runs: 0, failures: 0, errors: 0, skips: 0, problems: [], load_error: reason, timed_out: timed_out)
      end

      # RSpec's own words: the error that stopped the file ("TypeError:"
      # and the message on the line after it), else its first line that
      # names an error.
      def first_message(data)
        lines = Array(data["messages"]).flat_map(&:lines).map(&:strip).reject(&:empty?)
        at = lines.index { |line| line.match?(/\A[A-Z][\w:]*(Error|Exception)\w*:\z/) }
        return "#{lines[at]} #{lines[at + 1]}".strip if at
        lines.find { |line| line.match?(/Error|error/) && !line.start_with?("An error occurred") } || lines.first
      end

      def problem(example)
        message = example.dig("exception", "message").to_s.lines.map(&:strip).reject(&:empty?).first.to_s
        reason = "#{example.dig("exception", "class")}: #{message}"
        [example["full_description"], (reason.size > Summary::REASON) ? "#{reason[0, Summary::REASON]}..." : reason]
      end
    end
  end
end
