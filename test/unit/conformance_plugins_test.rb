# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require_relative "../../conformance/plugins/catalog"
require_relative "../../conformance/plugins/plugin_tree"
require_relative "../../conformance/plugins/rspec_result"
require_relative "../../conformance/plugins/report"

# bin/conformance --plugin's own logic: reading RSpec's report, adapting a
# plugin's test helper (in a copy, failing loudly on a helper of another
# shape) and the report of both runs.
class ConformancePluginsTest < Minitest::Test
  Plugins = Conformance::Plugins

  def report(examples, outside: 0)
    JSON.generate("examples" => examples, "messages" => ["An error occurred while loading ./spec/x_spec.rb.\nFailure/Error: module Batch\n\nTypeError:\n  Batch is not a module\n"],
      "summary" => {"example_count" => examples.size, "failure_count" => examples.count { |e| e["status"] == "failed" },
                    "pending_count" => examples.count { |e| e["status"] == "pending" }, "errors_outside_of_examples_count" => outside})
  end

  def test_rspec_s_report_gives_runs_passes_and_each_failure_with_its_reason
    examples = [{"full_description" => "matcher matches", "status" => "passed"},
      {"full_description" => "matcher in(1.hour)", "status" => "failed", "exception" => {"class" => "RSpec::Expectations::ExpectationNotMetError", "message" => "\nexpected at 1678683600\nbut 1796014399"}},
      {"full_description" => "later", "status" => "pending"}]
    summary = Plugins::RspecResult.parse("spec/m_spec.rb", report(examples), "", exit_status: 1)
    assert summary.loaded?
    assert_equal [3, 1, 1, 1], [summary.runs, summary.failures, summary.skips, summary.passes]
    assert_equal [["matcher in(1.hour)", "RSpec::Expectations::ExpectationNotMetError: expected at 1678683600"]], summary.problems
  end

  def test_a_spec_file_that_never_ran_an_example_reports_why
    summary = Plugins::RspecResult.parse("spec/x_spec.rb", report([], outside: 1), "", exit_status: 1)
    refute summary.loaded?
    assert_equal "TypeError: Batch is not a module", summary.load_error
    killed = Plugins::RspecResult.parse("spec/y_spec.rb", nil, "....", exit_status: nil, timed_out: true)
    assert_equal "timed out", killed.load_error
  end

  def test_a_copy_of_the_tree_is_adapted_and_the_source_left_alone
    Dir.mktmpdir do |dir|
      source = File.join(dir, "rspec-sidekiq-5.3.0")
      FileUtils.mkdir_p(File.join(source, "spec/rspec"))
      helper = 'config.sidekiq_gte_7 = Gem::Dependency.new("sidekiq", ">= 7.0.0").matching_specs.any?' + "\n"
      File.write(File.join(source, "spec/spec_helper.rb"), helper)
      File.write(File.join(source, "spec/rspec/a_spec.rb"), "")
      tree = Plugins::PluginTree.new(Plugins::Catalog.fetch("rspec-sidekiq"), source).copy_to(File.join(dir, "copy"))
      assert_equal ["spec/rspec/a_spec.rb"], tree.test_files
      adapted = File.read(File.join(tree.root, "spec/spec_helper.rb"))
      assert_equal "config.sidekiq_gte_7 = Gem::Requirement.new(\">= 7.0.0\").satisfied_by?(Gem::Version.new(Sidekiq::VERSION))\n", adapted
      assert_equal helper, File.read(File.join(source, "spec/spec_helper.rb"))

      File.write(File.join(source, "spec/spec_helper.rb"), "# another shape\n")
      error = assert_raises(ArgumentError) { Plugins::PluginTree.new(Plugins::Catalog.fetch("rspec-sidekiq"), source).copy_to(File.join(dir, "again")) }
      assert_includes error.message, "nothing matching"
    end
  end

  def test_a_missing_tree_names_how_to_get_it
    error = assert_raises(ArgumentError) { Plugins::PluginTree.new(Plugins::Catalog.fetch("sidekiq_alive"), "/nonexistent/sidekiq_alive") }
    assert_includes error.message, "git clone --depth 1 --branch v2.5.0 https://github.com/arturictus/sidekiq_alive"
    assert_includes assert_raises(ArgumentError) { Plugins::Catalog.fetch("sidekiq-cron") }.message, "known: rspec-sidekiq"
  end

  def test_the_report_marks_what_fails_on_the_sidekiq_gem_too
    plugin = Plugins::Catalog.fetch("sidekiq-status")
    problem = ["web shows jobs", "Errno::EADDRINUSE: Address already in use"]
    real = Conformance::Summary.new(file: "spec/web_spec.rb", runs: 2, failures: 1, errors: 0, skips: 0, problems: [problem], load_error: nil)
    ours = Conformance::Summary.new(file: "spec/web_spec.rb", runs: 2, failures: 2, errors: 0, skips: 0,
      problems: [problem, ["web pages", "ArgumentError: erb(:_paging)"]], load_error: nil)
    unloaded = Conformance::Summary.new(file: "spec/status_spec.rb", runs: 0, failures: 0, errors: 0, skips: 0, problems: [], load_error: "timed out")
    loaded = Conformance::Summary.new(file: "spec/status_spec.rb", runs: 15, failures: 3, errors: 0, skips: 0, problems: [], load_error: nil)
    text = Plugins::Report.new([[plugin, [real, unloaded], [ours, loaded]]], markdown: true, failures: true).to_s
    assert_includes text, "| sidekiq-status 3.0.3 | #{plugin.why} | 1/17 | 12/17 |", "a file one run did not load counts the other's tests"
    assert_includes text, "sidekiq-status: spec/web_spec.rb: web shows jobs: Errno::EADDRINUSE: Address already in use (fails on the sidekiq gem too)"
    assert text.end_with?("sidekiq-status: spec/web_spec.rb: web pages: ArgumentError: erb(:_paging)")
  end
end
