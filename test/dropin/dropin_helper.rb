# frozen_string_literal: true

require "test_helper"
require "open3"
require "rbconfig"
require "tmpdir"

module Deckhand
  # Drop-in mode runs only where the sidekiq gem is absent, so its tests run
  # Ruby in a child process whose load path lacks sidekiq: no Bundler, an
  # empty GEM_HOME (RubyGems finds no sidekiq either), and Deckhand's lib and
  # the bundle's other gems on -I. `-rdeckhand/sidekiq`
  # stands for the Gemfile's `require: "deckhand/sidekiq"` (Bundler.require).
  module DropInHelpers
    ROOT = File.expand_path("../..", __dir__)
    LIB = File.join(ROOT, "lib")
    SHOP = File.expand_path("shop", __dir__)
    OWN_CODE = %r{#{Regexp.escape(ROOT)}/(lib|test)}

    # Every gem of the bundle but sidekiq (Rails and Active Job included, for
    # the drop-in Active Job test).
    def self.gem_paths
      @gem_paths ||= Gem.loaded_specs.values.reject { |spec| spec.name.start_with?("sidekiq") }.flat_map(&:full_require_paths)
    end

    def self.empty_gem_home = @empty_gem_home ||= Dir.mktmpdir("deckhand-dropin-gems")

    Minitest.after_run { FileUtils.rm_rf(@empty_gem_home) if @empty_gem_home }

    # The environment of a drop-in child: no Bundler, no sidekiq anywhere.
    # preload: false leaves requiring deckhand/sidekiq to the script (as
    # Bundler.require does after `require "rails/all"`).
    def dropin_env(extra = {}, preload: true)
      rubyopt = (["-I#{LIB}"] + DropInHelpers.gem_paths.map { |path| "-I#{path}" } + (preload ? ["-rdeckhand/sidekiq"] : [])).join(" ")
      {"RUBYOPT" => rubyopt, "GEM_HOME" => DropInHelpers.empty_gem_home, "GEM_PATH" => DropInHelpers.empty_gem_home,
       "BUNDLE_GEMFILE" => nil, "BUNDLE_BIN_PATH" => nil, "RUBYLIB" => nil, "REDIS_URL" => RedisHarness.url,
       # Newer RubyGems (JRuby's) loads Bundler at boot when this is set.
       "BUNDLER_SETUP" => nil}.merge(extra)
    end

    # Runs `ruby -w *args` in drop-in mode; returns [output, status].
    def dropin_ruby(*args, chdir: SHOP, env: {}, preload: true)
      out, status = Open3.capture2e(dropin_env(env, preload: preload), RbConfig.ruby, "-w", *args, chdir: chdir)
      [out, status]
    end

    # Whether a drop-in child stands in for Sidekiq 8 (DECKHAND_SIDEKIQ, else the Ruby's default).
    def sidekiq_8_child?
      named = ENV["DECKHAND_SIDEKIQ"].to_s.strip
      named.empty? ? Gem::Version.new(RUBY_VERSION) >= Gem::Version.new("3.2") : named.start_with?("8")
    end

    # Runs a minitest file in drop-in mode and fails with its output unless
    # it passed. env: DECKHAND_SIDEKIQ => "7" or "8" for one Sidekiq version.
    def assert_dropin_tests_pass(file, chdir: SHOP, preload: true, env: {})
      out, status = dropin_ruby(file, chdir: chdir, preload: preload, env: env)
      assert status.success?, "#{file} failed in drop-in mode:\n#{out}"
      assert_match(/\d+ runs, \d+ assertions, 0 failures, 0 errors/, out)
      refute_match(/warning:/, out.lines.grep(%r{#{Regexp.escape(ROOT)}/(lib|test)}o).join, "Ruby warnings from our code")
      out
    end
  end
end
