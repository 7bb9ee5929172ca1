# frozen_string_literal: true

require "test_helper"
require "open3"
require "tmpdir"
require "fileutils"
require_relative "doc_examples"

# The guides' Gemfile lines, each in an application's Gemfile resolved by
# the real Bundler (`bundle lock --local`: from the gems already installed,
# no network) and then loaded with `bundle exec`, as an application would.
# Deckhand is not on RubyGems: `gem "deckhand"` finds the gem built from
# this checkout and installed as the README says (`gem build`, `gem install`),
# into a gem home of the test's own.
class DocsGemfileExamplesTest < Minitest::Test
  ROOT = Deckhand::DocExamples::ROOT
  # The gems of the run's own bundle (vendor/bundle, or bin/test --ruby's
  # under tmp/), where `bundle lock --local` finds the rest.
  BUNDLED = Bundler.bundle_path.to_s

  # A Bundler-free environment for the child processes: the test run's own
  # bundle must not leak into the application's.
  def env(gems)
    {"GEM_HOME" => gems, "GEM_PATH" => [gems, BUNDLED].join(File::PATH_SEPARATOR), "BUNDLE_PATH" => nil,
     "BUNDLE_GEMFILE" => nil, "BUNDLE_BIN_PATH" => nil, "RUBYOPT" => nil, "BUNDLE_WITHOUT" => nil,
     "BUNDLE_APP_CONFIG" => nil, "BUNDLE_FROZEN" => nil, "BUNDLE_DEPLOYMENT" => nil, "DECKHAND_SIDEKIQ" => nil}
  end

  def sh(env, *command, chdir:)
    out, status = Open3.capture2e(env, *command, chdir: chdir)
    assert status.success?, "#{command.join(" ")}:\n#{out}"
    out
  end

  # Builds and installs the checkout's gem once per run, as the README's
  # `gem build deckhand.gemspec && gem install ./deckhand-*.gem` does.
  def gems
    self.class.instance_variable_get(:@gems) || self.class.instance_variable_set(:@gems, install_gem)
  end

  def install_gem
    dir = Dir.mktmpdir("deckhand-gems")
    Minitest.after_run { FileUtils.rm_rf(dir) }
    gem = File.join(dir, "deckhand.gem")
    sh(env(dir), "gem", "build", "deckhand.gemspec", "-o", gem, chdir: ROOT)
    sh(env(dir), "gem", "install", "--local", "--no-document", gem, chdir: dir)
    dir
  end

  # An application beside a checkout of Deckhand (`../deckhand`), its
  # Gemfile the example after the usual source line (and `extra` lines);
  # runs `ruby -e script` under `bundle exec` and returns its output.
  def app_output(name, script, extra: "")
    Dir.mktmpdir("deckhand-app") do |dir|
      File.symlink(ROOT, File.join(dir, "deckhand"))
      app = File.join(dir, "app")
      Dir.mkdir(app)
      gemfile = %(source "https://rubygems.org"\n#{extra}#{Deckhand::DocExamples.fetch(name).code})
      File.write(File.join(app, "Gemfile"), gemfile)
      Bundler.with_unbundled_env do
        sh(env(gems), "bundle", "lock", "--local", chdir: app)
        sh(env(gems), "bundle", "exec", RbConfig.ruby, "-e", script, chdir: app)
      end
    end
  end

  def test_the_readmes_gemfile_with_a_checkout_beside_the_app
    out = app_output("readme-gemfile", <<~RUBY)
      Bundler.require
      require "deckhand/web"
      require "rackup"
      require "webrick"
      puts Deckhand::Web.instance_method(:call).source_location.first
    RUBY
    assert_equal File.join(File.realpath(ROOT), "lib/deckhand/web.rb"), File.realpath(out.lines.last.chomp), "the checkout's code"
  end

  def test_the_migration_guides_gemfile_loads_drop_in_mode
    out = app_output("migrating-gemfile", <<~RUBY)
      Bundler.require
      puts Object.const_source_location("Sidekiq").first, $LOADED_FEATURES.grep(%r{/gems/sidekiq-}).size
    RUBY
    file, sidekiq_files = out.lines.last(2).map(&:chomp)
    assert_match %r{/gems/deckhand-[^/]+/lib/deckhand/sidekiq}, file, "Sidekiq is Deckhand's drop-in, from the built gem"
    assert_equal "0", sidekiq_files, "the sidekiq gem stays out"
  end

  def test_the_migration_guides_gemfile_for_a_sidekiq_7_shop_stands_in_for_sidekiq_7
    out = app_output("migrating-gemfile-7", %(Bundler.require; puts Sidekiq::VERSION))
    assert_equal "7.3.0", out.lines.last.chomp
  end

  def test_the_rails_guides_gemfile_line
    out = app_output("rails-gemfile", %(Bundler.require; puts Deckhand::Job.name))
    assert_equal "Deckhand::Job", out.lines.last.chomp
  end

  def test_fugit_in_the_gemfile_parses_periodic_schedules
    script = <<~RUBY
      Bundler.require
      config = Deckhand::Config.new
      config.periodic { |cron| cron.register("0 2 * * *", "NightlyReportJob") }
      puts config.periodic.entries.size
    RUBY
    out = app_output("periodic-gemfile", script, extra: %(gem "deckhand"\n))
    assert_equal "1", out.lines.last.chomp
  end

  def test_the_concurrency_guides_gemfile_lets_a_fiber_capsule_load_async
    skip_on_jruby("fiber capsules refuse to start there (test/unit/server/fibers/fiber_config_test.rb)")
    script = <<~RUBY
      Bundler.require
      require "deckhand/server"
      Deckhand::Server::Fibers::Loader.load!("io")
      puts Async::VERSION
    RUBY
    out = app_output("concurrency-gemfile", script, extra: %(gem "deckhand"\n))
    # The loader refuses an async that breaks this Ruby; on Ruby 3.1 the
    # guide's ceiling holds it below the first that would.
    version = Gem::Version.new(out.lines.last.chomp)
    assert_operator version, :<, Gem::Version.new("2.24") if RUBY_VERSION < "3.2"
    assert_operator version, :>=, Gem::Version.new("2.21")
  end
end
