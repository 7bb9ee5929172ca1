# frozen_string_literal: true

require "test_helper"
require "open3"
require "tmpdir"
require "fileutils"

# bin/release-check (`rake release:check`, docs/releases.md) checks the gem
# as users install it: built without a warning, installed into an empty
# GEM_HOME, required and run from there with a job pushed and worked. Each
# run builds and installs the gem, a few seconds.
class ReleaseCheckTest < Minitest::Test
  ROOT = File.expand_path("../..", __dir__)
  SHIPPED = %w[lib exe docs README.md CHANGES.md LICENSE deckhand.gemspec bin/release-check].freeze

  def test_the_installed_gem_boots_and_runs_a_job
    output, status = check(ROOT)

    assert status.success?, output
    version = Deckhand::VERSION
    assert_includes output, "built deckhand-#{version}.gem without a warning"
    assert_match(%r{deckhand #{Regexp.escape(version)} from /\S+/gems/gems/deckhand-#{Regexp.escape(version)}$}, output)
    assert_includes output, "the installed deckhand says deckhand #{version}"
    assert_match(/pushed a job and ran it with the installed deckhand on \w+ \d/, output)
    assert_match(/release check: passed\n\z/, output)
  end

  # A copy of what the gem holds, its gemspec left with an open-ended
  # dependency, which `gem build` warns of.
  def test_a_warning_from_gem_build_fails_the_check
    Dir.mktmpdir("deckhand-release-copy") do |copy|
      SHIPPED.each do |path|
        FileUtils.mkdir_p(File.dirname(File.join(copy, path)))
        FileUtils.cp_r(File.join(ROOT, path), File.join(copy, path))
      end
      gemspec = File.join(copy, "deckhand.gemspec")
      bounded = File.read(gemspec)
      File.write(gemspec, bounded.sub('"redis-client", ">= 0.22", "< 1"', '"redis-client", ">= 0.22"'))
      refute_equal bounded, File.read(gemspec), "the gemspec's redis-client line moved: change this test with it"

      output, status = check(copy)

      refute status.success?, output
      assert_match(/release check failed: gem build (warned|failed).*open-ended dependency on redis-client/m, output)
      refute_includes output, "release check: passed"
    end
  end

  private

  def check(root)
    # The bundle this test runs in (today's stack's on Ruby 3.3), also for the copy outside the checkout.
    env = {"BUNDLE_GEMFILE" => ENV.fetch("BUNDLE_GEMFILE", File.join(ROOT, "Gemfile"))}
    Open3.capture2e(env, RbConfig.ruby, File.join(root, "bin/release-check"), chdir: root)
  end
end
