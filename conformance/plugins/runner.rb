# frozen_string_literal: true

require "open3"
require "tmpdir"
require "bundler"
require "rbconfig"
require "deckhand/dev_redis"
require_relative "../summary"
require_relative "../comparison"
require_relative "catalog"
require_relative "plugin_tree"
require_relative "rspec_result"

module Conformance
  module Plugins
    # bin/conformance --plugin NAME [SOURCE]: a Sidekiq plugin's own test
    # suite, each file alone in a fresh Ruby on a private redis-server, run
    # against the sidekiq gem and then against drop-in mode, the same way:
    # the plugin's source on the load path, the plugins' own bundle
    # (conformance/plugins/Gemfile, installed under tmp/plugins/bundle,
    # never Deckhand's), the sidekiq gem's group left out for drop-in mode.
    #
    #   bin/conformance --plugin rspec-sidekiq                 # the tree under tmp/plugins/src
    #   bin/conformance --plugin sidekiq-status ~/src/sidekiq-status-3.0.3
    #   bin/conformance --plugin all --markdown --failures     # every plugin, for docs/compatibility.md
    class Runner
      ROOT = File.expand_path("../..", __dir__)
      GEMFILE = File.join(__dir__, "Gemfile")
      BUNDLE = File.join(ROOT, "tmp/plugins/bundle")
      PRELOAD = File.join(__dir__, "preload")

      def initialize(options)
        @options = options
      end

      # Returns the rows of each plugin: [plugin, baseline summaries, drop-in summaries].
      def run(name, source)
        install
        plugins = (name == "all") ? Catalog::PLUGINS : [Catalog.fetch(name)]
        raise ArgumentError, "give no source tree with --plugin all (each is looked for under tmp/plugins/src)" if source && plugins.size > 1
        plugins.map { |plugin| [plugin, *run_plugin(plugin, source)] }
      end

      private

      def run_plugin(plugin, source)
        Dir.mktmpdir("deckhand-plugin") do |dir|
          tree = PluginTree.new(plugin, source).copy_to(dir)
          redis = Deckhand::DevRedis.start(dir: File.join(dir, "redis"), persistent: false)
          begin
            [true, false].map { |real| tree.test_files.map { |file| run_file(plugin, tree.root, file, redis.url, real) } }
          ensure
            redis.stop
          end
        end
      end

      # The plugins' bundle, installed once (and again when its Gemfile changes).
      def install
        env = {"BUNDLE_GEMFILE" => GEMFILE, "BUNDLE_PATH" => BUNDLE, "BUNDLE_WITHOUT" => nil}
        _, status = Bundler.with_unbundled_env { Open3.capture2e(env, "bundle", "check") }
        return if status.success?
        warn "installing the plugins' gems under #{BUNDLE} (conformance/plugins/Gemfile)"
        output, status = Bundler.with_unbundled_env { Open3.capture2e(env, "bundle", "install") }
        raise ArgumentError, "bundle install of conformance/plugins/Gemfile failed:\n#{output}" unless status.success?
      end

      def run_file(plugin, root, file, url, real)
        report = File.join(root, ".deckhand-report.json")
        File.delete(report) if File.exist?(report)
        output, status, timed_out = Bundler.with_unbundled_env { capture(env(url, real), command(plugin, file, real, report), root) }
        save_log(plugin, file, output, real)
        summary = if plugin.runner == :rspec
          RspecResult.parse(file, File.exist?(report) ? File.read(report) : nil, output, exit_status: status&.exitstatus, timed_out: timed_out)
        else
          Summary.parse(file, output, exit_status: status&.exitstatus, timed_out: timed_out)
        end
        warn format("%-16s %-8s %-50s %s", plugin.name, real ? "sidekiq" : "drop-in", file, summary.loaded? ? "#{summary.passes}/#{summary.runs}" : "load error") unless @options[:markdown]
        summary
      end

      def env(url, real)
        {"BUNDLE_GEMFILE" => GEMFILE, "BUNDLE_PATH" => BUNDLE, "BUNDLE_WITHOUT" => real ? nil : "sidekiq",
         "REDIS_URL" => url, "RUBYOPT" => nil, "RAILS_ENV" => "test", "RACK_ENV" => "test"}
      end

      def command(plugin, file, real, report)
        preload = File.join(PRELOAD, real ? "sidekiq_gem.rb" : "deckhand_sidekiq.rb")
        base = [RbConfig.ruby, "-I", "lib", *uses(plugin), "-r", preload]
        if plugin.runner == :rspec
          base + ["-S", "rspec", "-I", "spec", file, "--format", "progress", "--format", "json", "--out", report]
        else
          base + ["-I", "test", file]
        end
      end

      # The lib/ of each plugin it uses, from that plugin's source tree.
      def uses(plugin)
        Array(plugin.uses).flat_map { |name| ["-I", File.join(PluginTree.new(Catalog.fetch(name), nil).source, "lib")] }
      end

      def capture(env, command, root)
        Open3.popen2e(env, *command, chdir: root, pgroup: true) do |stdin, out, waiter|
          stdin.close
          reader = Thread.new { out.read }
          finished = waiter.join(@options[:timeout])
          unless finished
            Process.kill("KILL", -waiter.pid)
            waiter.join
          end
          [reader.value, waiter.value, !finished]
        end
      end

      def save_log(plugin, file, output, real)
        return unless (dir = @options[:logs])
        FileUtils.mkdir_p(dir)
        name = "#{plugin.name}-#{real ? "sidekiq" : "dropin"}-#{file.tr("/", "_")}".sub(/\.rb\z/, ".log")
        File.write(File.join(dir, name), output)
      end
    end
  end
end
