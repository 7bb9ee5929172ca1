# frozen_string_literal: true

require "test_helper"

module Deckhand
  # bin/test's progress by folder (test/support/folder_progress.rb): the
  # line a minute and the table at the end, from results as minitest hands
  # them over.
  class FolderProgressTest < Minitest::Test
    def test_a_progress_line_counts_each_folder_against_its_planned_tests
      io = StringIO.new
      reporter = FolderProgress.new(io, {filter: "/FolderProgressTest#test_(a_progress_line|the_table)/"}, interval: 0)
      reporter.start
      reporter.record(result(self.class.name, failed: true))

      line = io.string.lines.last
      assert_match(/\Abin\/test: 0 min, 1 of 2 tests; unit 1\/2; 1 failed so far\n\z/, line)
    end

    def test_the_table_at_the_end_lists_each_folder_a_run_spans
      io = StringIO.new
      reporter = FolderProgress.new(io, {})
      reporter.start
      reporter.record(result(self.class.name))
      reporter.record(result(self.class.name, failed: true))
      reporter.record(result(TestHelpers.name)) # defined in test/support
      reporter.report

      assert_equal ["  support          1         0       0.5", "  unit             2         1       1.0"],
        io.string.lines.map(&:chomp).grep(/\A  \w/)
      assert_empty io.string.lines.grep(/min,/), "no progress line within the first minute"
    end

    def test_a_run_within_one_folder_ends_without_a_table
      io = StringIO.new
      reporter = FolderProgress.new(io, {})
      reporter.start
      reporter.record(result(self.class.name))
      reporter.report

      assert_empty io.string
    end

    private

    def result(klass, failed: false)
      Minitest::Result.new("test_x").tap do |r|
        r.klass = klass
        r.time = 0.5
        r.failures << Minitest::Assertion.new("no") if failed
      end
    end
  end
end
