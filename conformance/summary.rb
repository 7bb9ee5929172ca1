# frozen_string_literal: true

module Conformance
  # What one test file's run came to, read from minitest's output.
  #
  #   summary = Summary.parse("test/api_test.rb", output, exit_status: 1)
  #   summary.runs       # => 70
  #   summary.passes     # => 64
  #   summary.problems   # => [["Sidekiq::API#test_0003_...", "Expected 1, got 0"], ...]
  #   summary.load_error # => nil, or the first line of what stopped the file loading
  Summary = Struct.new(:file, :runs, :failures, :errors, :skips, :problems, :load_error, :timed_out, keyword_init: true)

  # Reading minitest's output.
  class Summary
    # "70 runs, 212 assertions, 3 failures, 1 errors, 0 skips"
    TOTALS = /^(\d+) runs, \d+ assertions, (\d+) failures, (\d+) errors, (\d+) skips/
    # "  1) Failure:" or "  2) Error:", then the test's name line.
    PROBLEM = /^\s*\d+\) (Failure|Error):\s*$/
    # Minitest names a failure "Class#test_name [file:line]:", an error "Class#test_name:".
    NAME = /\A(.+?#.+?)(?: \[[^\]]*\])?:\s*\z/

    # A reason longer than this (a whole page's HTML) is cut.
    REASON = 160

    def self.parse(file, output, exit_status: 0, timed_out: false)
      totals = output.scan(TOTALS).last
      if totals.nil?
        return new(file: file, runs: 0, failures: 0, errors: 0, skips: 0, problems: [],
          load_error: timed_out ? "timed out before any test finished" : first_error_line(output, exit_status),
          timed_out: timed_out)
      end
      runs, failures, errors, skips = totals.map(&:to_i)
      new(file: file, runs: runs, failures: failures, errors: errors, skips: skips,
        problems: problems(output), load_error: nil, timed_out: timed_out)
    end

    # The failing tests, each with the first line of its reason.
    def self.problems(output)
      lines = output.lines.map(&:chomp)
      lines.each_index.filter_map do |i|
        next unless PROBLEM.match?(lines[i])
        name = lines[i + 1].to_s[NAME, 1] or next
        reason = lines[(i + 2)..].find { |line| !line.strip.empty? }.to_s.strip
        [name, (reason.size > REASON) ? "#{reason[0, REASON]}..." : reason]
      end
    end

    # What a file that never reached its summary said first: the exception
    # line when there is one (Ruby prints "file:line:in `x': message (Class)").
    def self.first_error_line(output, exit_status)
      lines = output.lines.map(&:strip).reject(&:empty?)
      found = lines.find { |line| line.match?(/\(\w+(::\w+)*\)\z|Error\b|error\b/) } || lines.first
      found || "exited #{exit_status} and printed nothing"
    end

    def passes = [runs - failures - errors - skips, 0].max

    def loaded? = load_error.nil?
  end
end
