# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require_relative "../../conformance/summary"
require_relative "../../conformance/table"
require_relative "../../conformance/comparison"
require_relative "../../conformance/sidekiq_tree"
require_relative "../../conformance/preload/sidekiq_suite"

# bin/conformance's own logic: reading minitest's output, the table, the
# adaptation of a Sidekiq tree's test helper and what both runs preload.
class ConformanceRunnerTest < Minitest::Test
  OUTPUT = <<~OUT
    Run options: --seed 4242

    # Running:

    ..F.E.S

    Finished in 0.5 s

      1) Failure:
    Sidekiq::API::stats#test_0003_resets [test/api_test.rb:40]:
    Expected: 1
      Actual: 0

      2) Error:
    Sidekiq::API#test_0007_kills a job:
    NoMethodError: undefined method `kill' for #<Sidekiq::DeadSet>
        test/api_test.rb:99:in `block (2 levels) in <top (required)>'

    7 runs, 9 assertions, 1 failures, 1 errors, 1 skips
  OUT

  def test_a_finished_file_counts_its_runs_passes_and_problems
    summary = Conformance::Summary.parse("test/api_test.rb", OUTPUT, exit_status: 1)
    assert summary.loaded?
    assert_equal [7, 1, 1, 1, 4], [summary.runs, summary.failures, summary.errors, summary.skips, summary.passes]
    assert_equal [["Sidekiq::API::stats#test_0003_resets", "Expected: 1"],
      ["Sidekiq::API#test_0007_kills a job", "NoMethodError: undefined method `kill' for #<Sidekiq::DeadSet>"]], summary.problems
  end

  def test_a_file_that_never_loaded_reports_the_exception_line
    output = "warning: something harmless\ntest/helper.rb:7:in `require': cannot load such file -- sidekiq/fetch (LoadError)\n\tfrom x\n"
    summary = Conformance::Summary.parse("test/fetch_test.rb", output, exit_status: 1)
    refute summary.loaded?
    assert_equal "test/helper.rb:7:in `require': cannot load such file -- sidekiq/fetch (LoadError)", summary.load_error
    assert_equal 0, summary.passes
  end

  def test_a_file_stopped_by_the_timeout_says_so
    summary = Conformance::Summary.parse("test/slow_test.rb", "..", exit_status: nil, timed_out: true)
    assert_equal "timed out before any test finished", summary.load_error
  end

  def test_the_table_totals_only_the_files_that_loaded
    ok = Conformance::Summary.parse("test/api_test.rb", OUTPUT)
    broken = Conformance::Summary.parse("test/web_test.rb", "boom (RuntimeError)", exit_status: 1)
    table = Conformance::Table.new([ok, broken])
    assert_equal ["total (2 files, 1 did not load)", 7, 4, 1, 1, 1], table.totals
    markdown = table.markdown.lines.map(&:chomp)
    assert_equal "| test/api_test.rb | 7 | 4 | 1 | 1 | 1 |", markdown[2]
    assert_equal "| test/web_test.rb | load error: `boom (RuntimeError)` |  |  |  |  |", markdown[3]
    assert_match(/^test\/web_test.rb +load error: boom \(RuntimeError\)$/, table.text)
  end

  def test_the_helper_builds_a_deckhand_configuration_and_loads_deckhands_rails_support
    helper = "x = 1\ndef reset!\n  cfg = Sidekiq::Config.new\n  cfg\nend\n\nrequire \"sidekiq/rails\"\n"
    adapted = Conformance::SidekiqTree.adapt(helper)
    refute_includes adapted, "Sidekiq::Config.new"
    assert_includes adapted, "Deckhand.config = Deckhand::Config.new"
    assert_includes adapted, "require \"deckhand/sidekiq/active_job\"\n"
    refute_includes adapted, "sidekiq/rails"
    assert adapted.start_with?("x = 1\ndef reset!\n")
  end

  def test_a_helper_of_another_shape_is_refused_with_the_reason
    error = assert_raises(ArgumentError) { Conformance::SidekiqTree.adapt("require \"sidekiq/rails\"\n") }
    assert_includes error.message, "def reset!"
  end

  def test_the_copy_leaves_the_source_alone_and_has_no_lib
    Dir.mktmpdir do |dir|
      source = File.join(dir, "sidekiq-src")
      FileUtils.mkdir_p(%W[#{source}/lib/sidekiq #{source}/test/iterable])
      File.write("#{source}/lib/sidekiq.rb", "raise")
      File.write("#{source}/test/helper.rb", "def reset!\n  Sidekiq::Config.new\nend\nrequire \"sidekiq/rails\"\n")
      File.write("#{source}/test/api_test.rb", "")
      File.write("#{source}/test/iterable/csv_test.rb", "")
      tree = Conformance::SidekiqTree.new(source).copy_to(File.join(dir, "copy"), drop_in: true)
      refute File.exist?(File.join(tree.root, "lib"))
      assert_equal %w[test/api_test.rb test/iterable/csv_test.rb], tree.test_files
      assert_includes File.read("#{source}/test/helper.rb"), "Sidekiq::Config.new"
      refute_includes File.read("#{tree.root}/test/helper.rb"), "Sidekiq::Config.new"
    end
  end

  def test_the_comparison_puts_drop_in_beside_the_real_gem
    real = [Conformance::Summary.parse("test/api_test.rb", OUTPUT.sub("1 failures, 1 errors, 1 skips", "0 failures, 0 errors, 0 skips")),
      Conformance::Summary.parse("test/web_test.rb", "9 runs, 9 assertions, 0 failures, 0 errors, 0 skips")]
    ours = [Conformance::Summary.parse("test/api_test.rb", OUTPUT), Conformance::Summary.parse("test/web_test.rb", "boom (RuntimeError)")]
    table = Conformance::Comparison.new(real, ours)
    assert_equal [["test/api_test.rb", "7/7", "4/7", 1, 1], ["test/web_test.rb", "9/9", "did not load: boom (RuntimeError)", "", ""]], table.rows
    assert_equal ["total (2 files)", "16/16", "4/16", 1, 1], table.totals
    assert_includes table.markdown, "| test/web_test.rb | 9/9 | did not load: boom (RuntimeError) |  |  |"
  end

  # Sidekiq 8.1.7's reset! closes its flushing client; the adaptation takes it whole.
  def test_sidekiq_8s_helper_is_adapted_too
    helper = "def reset!\n  c = RedisClient.new(url: ENV[\"REDIS_URL\"])\n  c.call(\"flushdb\")\n  c.close\n  cfg = Sidekiq::Config.new\n  cfg\nend\n" \
      "require \"sidekiq/rails\"\n"
    adapted = Conformance::SidekiqTree.adapt(helper)
    assert_includes adapted, "Deckhand.config = Deckhand::Config.new"
    refute_includes adapted, "c.close"
  end

  def test_a_file_that_loads_rails_without_an_app_gets_the_dummy_app
    refute Conformance::SidekiqSuite.rails_without_app?, "no Rails application here, and no test/dummy"
    assert_equal "test/dummy/config/environment.rb", Conformance::SidekiqSuite::DUMMY
  end

  def test_the_drop_in_run_keeps_the_sidekiq_gem_off_the_load_path
    source = File.read(File.expand_path("../../conformance/preload/deckhand_sidekiq.rb", __dir__))
    strip = source[/^\$LOAD_PATH\.reject!.*$/] or flunk("the drop-in preload no longer strips the sidekiq gem")
    paths = ["/b/gems/sidekiq-8.1.7/lib", "/b/gems/sidekiq-cron-2.0/lib", "/b/gems/redis-client-0.31.0/lib"]
    stripped = paths.dup.tap { |list| list.instance_eval(strip.sub("$LOAD_PATH", "self")) }
    assert_equal ["/b/gems/sidekiq-cron-2.0/lib", "/b/gems/redis-client-0.31.0/lib"], stripped
  end

  def test_both_runs_set_up_what_the_whole_suite_would_have
    %w[deckhand_sidekiq.rb sidekiq_gem.rb].each do |preload|
      source = File.read(File.expand_path("../../conformance/preload/#{preload}", __dir__))
      assert_match(/^require_relative "sidekiq_suite"\nConformance::SidekiqSuite.install$/, source, preload)
    end
  end

  # An in-memory SQLite database of its own, apart from any other Active
  # Record connection the suite holds (the adapter is JRuby's JDBC one there).
  def test_the_tables_of_the_dummy_app_are_those_sidekiqs_tests_use
    record = suite_record
    record.establish_connection(adapter: "sqlite3", database: ":memory:")
    record.with_connection do |db|
      Conformance::SidekiqSuite.create_tables(db)
      Conformance::SidekiqSuite.create_tables(db) # a second file's run starts over
      assert_equal %w[id title published_date], db.columns(:posts).map(&:name)
      assert_equal [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], db.select_values("SELECT id FROM products ORDER BY id").map(&:to_i)
      assert_equal 0, db.select_value("SELECT count(*) FROM posts").to_i
    end
  ensure
    record&.remove_connection
  end

  # Active Record loads only for the test that needs it, and names its
  # connection after the class that holds it.
  def suite_record
    require "active_record"
    return SuiteRecord if self.class.const_defined?(:SuiteRecord, false)
    self.class.const_set(:SuiteRecord, Class.new(ActiveRecord::Base) { self.abstract_class = true })
  end
end
