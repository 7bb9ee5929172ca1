# frozen_string_literal: true

require "test_helper"
require "open3"
require "tmpdir"

# The gem holds what users run: the library, the executable and the docs. The
# comparison with Sidekiq, its latency proxy, the torture suite and the tests
# stay in the checkout.
class GemspecTest < Minitest::Test
  ROOT = File.expand_path("../..", __dir__)
  GEMSPEC = File.join(ROOT, "deckhand.gemspec")
  # Names only the benchmark and torture code uses; a shipped file that says
  # one of them requires or describes code the gem does not hold.
  OUTSIDE_CODE = %r{DeckhandBench|deckhand_bench|LatencyProxy|deckhand/bench|bench_command|torture/}

  def test_ships_the_library_the_executable_and_the_docs
    assert_includes files, "lib/deckhand.rb"
    assert_includes files, "lib/deckhand/cli.rb"
    assert_includes files, "exe/deckhand"
    assert_includes files, "docs/reliability.md"
    assert_equal ["deckhand"], spec.executables
  end

  def test_ships_nothing_from_bench_torture_or_test
    assert_empty files.select { |file| file.start_with?("bench/", "torture/", "test/") }
  end

  def test_no_shipped_library_file_is_or_loads_the_sidekiq_comparison
    library = files.grep(%r{\Alib/})

    assert_empty library.grep(%r{\Alib/deckhand/(bench|cli/bench_command)})
    assert_empty(library.select { |file| File.read(File.join(ROOT, file)).match?(OUTSIDE_CODE) })
  end

  # Gem::Specification.load caches by path, so the gemspec is evaluated afresh here.
  def test_the_file_list_does_not_depend_on_the_working_directory
    elsewhere = Dir.chdir(Dir.tmpdir) { TOPLEVEL_BINDING.eval(File.read(GEMSPEC), GEMSPEC) }

    assert_equal files, elsewhere.files
  end

  # An open-ended requirement lets a future major version in untested, and
  # `gem build` warns of it, as of a missing homepage.
  def test_every_runtime_dependency_stops_before_the_next_major_version
    spec.runtime_dependencies.each do |dependency|
      operators = dependency.requirement.requirements.map(&:first)
      assert_includes operators, "<", "#{dependency.name} #{dependency.requirement} has no upper bound"
    end
    assert_equal({"connection_pool" => ">= 2.4, < 4", "json" => ">= 2.6, < 4", "redis-client" => ">= 0.22, < 1"},
      spec.runtime_dependencies.to_h { |d| [d.name, d.requirement.to_s] })
  end

  def test_the_gem_builds_without_a_warning_and_names_its_home
    Dir.mktmpdir("deckhand-gem") do |dir|
      output, status = Open3.capture2e("gem", "build", GEMSPEC, "--output", File.join(dir, "deckhand.gem"), chdir: ROOT)
      assert status.success?, output
      refute_match(/WARNING/, output)
    end
    assert_match(%r{\Ahttps://}, spec.homepage)
    %w[source_code_uri changelog_uri bug_tracker_uri].each { |key| assert_match(%r{\A#{Regexp.escape(spec.homepage)}}, spec.metadata[key], key) }
    assert File.read(File.join(ROOT, "README.md")).include?(spec.homepage), "the README names #{spec.homepage} too"
  end

  private

  def files = spec.files

  def spec
    @spec ||= Gem::Specification.load(GEMSPEC).tap { |loaded| refute_nil loaded, "deckhand.gemspec did not load" }
  end
end
