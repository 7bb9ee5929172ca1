# frozen_string_literal: true

require "test_helper"
require "open3"
require "rbconfig"
require "tmpdir"

module Deckhand
  # Drop-in mode runs only where the sidekiq gem is absent, so its tests run
  # Ruby in a child process whose load path lacks sidekiq: no Bundler, an
  # empty GEM_HOME (RubyGems finds no sidekiq either), and only Deckhand's
  # lib and its runtime gems (plus minitest and rack) on -I. `-rdeckhand/sidekiq`
  # stands for the Gemfile's `require: "deckhand/sidekiq"` (Bundler.require).
  module DropInHelpers
    ROOT = File.expand_path("../..", __dir__)
    LIB = File.join(ROOT, "lib")
    SHOP = File.expand_path("shop", __dir__)
    GEMS = %w[json redis-client connection_pool minitest rack].freeze
    OWN_CODE = %r{#{Regexp.escape(ROOT)}/(lib|test)}

    def self.gem_paths
      @gem_paths ||= GEMS.flat_map do |name|
        spec = Gem.loaded_specs[name] or raise "#{name} is not in the bundle"
        spec.full_require_paths
      end
    end

    def self.empty_gem_home = @empty_gem_home ||= Dir.mktmpdir("deckhand-dropin-gems")

    Minitest.after_run { FileUtils.rm_rf(@empty_gem_home) if @empty_gem_home }

    # The environment of a drop-in child: no Bundler, no sidekiq anywhere.
    def dropin_env(extra = {})
      rubyopt = (["-I#{LIB}"] + DropInHelpers.gem_paths.map { |path| "-I#{path}" } + ["-rdeckhand/sidekiq"]).join(" ")
      {"RUBYOPT" => rubyopt, "GEM_HOME" => DropInHelpers.empty_gem_home, "GEM_PATH" => DropInHelpers.empty_gem_home,
       "BUNDLE_GEMFILE" => nil, "BUNDLE_BIN_PATH" => nil, "RUBYLIB" => nil, "REDIS_URL" => RedisHarness.url}.merge(extra)
    end

    # Runs `ruby -w *args` in drop-in mode; returns [output, status].
    def dropin_ruby(*args, chdir: SHOP, env: {})
      out, status = Open3.capture2e(dropin_env(env), RbConfig.ruby, "-w", *args, chdir: chdir, unsetenv_others: false)
      [out, status]
    end

    # Runs a minitest file in drop-in mode and fails with its output unless it passed.
    def assert_dropin_tests_pass(file, chdir: SHOP)
      out, status = dropin_ruby(file, chdir: chdir)
      assert status.success?, "#{file} failed in drop-in mode:\n#{out}"
      assert_match(/\d+ runs, \d+ assertions, 0 failures, 0 errors/, out)
      refute_match(/warning:/, out.lines.grep(%r{#{Regexp.escape(ROOT)}/(lib|test)}o).join, "Ruby warnings from our code")
      out
    end
  end
end
