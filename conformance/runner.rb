# frozen_string_literal: true

# bin/conformance: runs a Sidekiq source tree's own test suite against
# Deckhand's drop-in mode, one file at a time, and prints a table per file.
#
#   bin/conformance ~/src/sidekiq-7.3.10                  # every test file
#   bin/conformance ~/src/sidekiq-7.3.10 api client       # only these files
#   bin/conformance --markdown ~/src/sidekiq-7.3.10       # the table for docs/compatibility.md
#   bin/conformance --sidekiq ~/src/sidekiq-7.3.10        # the baseline: the real gem
#   bin/conformance --failures ~/src/sidekiq-7.3.10 web   # also each failing test and why
#   bin/conformance --compare --markdown ~/src/sidekiq-7.3.10   # the real gem's figures beside drop-in's
#   bin/conformance --plugin rspec-sidekiq [SOURCE]       # a plugin's own suite, on the gem and drop-in mode
#   bin/conformance --plugin all --markdown --failures    # every plugin of conformance/plugins/catalog.rb

require "optparse"
require "open3"
require "tmpdir"
require "bundler"
require "deckhand/dev_redis"
require_relative "summary"
require_relative "table"
require_relative "comparison"
require_relative "sidekiq_tree"
require_relative "plugins/runner"
require_relative "plugins/report"

module Conformance
  ROOT = File.expand_path("..", __dir__)
  PRELOAD = File.join(__dir__, "preload")
  # Read before Bundler.with_unbundled_env drops every BUNDLE_ variable.
  BUNDLE = {
    "BUNDLE_GEMFILE" => ENV.fetch("BUNDLE_GEMFILE", File.join(ROOT, "Gemfile")),
    "BUNDLE_PATH" => ENV["BUNDLE_PATH"]
  }.freeze

  class Runner
    def self.run(argv) = new.run(argv)

    def run(argv)
      options = parse(argv)
      return plugins(options, argv) if options[:plugin]
      source = argv.shift or return usage("give the Sidekiq source tree to test")
      modes = if options[:compare] then [true, false]
      else [options[:sidekiq]]
      end
      runs = modes.map do |real|
        Dir.mktmpdir("deckhand-conformance") do |dir|
          tree = SidekiqTree.new(source).copy_to(dir, drop_in: !real)
          files = select(tree.test_files, argv)
          with_redis(dir) { |url| files.map { |file| run_file(tree.root, file, url, options.merge(sidekiq: real)) } }
        end
      end
      options[:compare] ? compare(*runs, options) : report(runs.first, options)
      0
    rescue ArgumentError => e
      usage(e.message)
    end

    private

    def plugins(options, argv)
      rows = Plugins::Runner.new(options).run(options[:plugin], argv.shift)
      puts Plugins::Report.new(rows, markdown: options[:markdown], failures: options[:failures])
      0
    end

    def parse(argv)
      options = {markdown: false, sidekiq: false, failures: false, timeout: nil, logs: nil}
      @parser = OptionParser.new do |p|
        p.banner = "Usage: bin/conformance [options] SIDEKIQ_SRC [FILE ...]\n" \
          "       bin/conformance --plugin NAME [PLUGIN_SRC]\n" \
          "FILE: a test file's name, with or without test/ and _test.rb (api, test/iterable/iterable_test.rb)"
        p.on("--markdown", "Print the table as Markdown (docs/compatibility.md)") { options[:markdown] = true }
        p.on("--sidekiq", "Run against the real sidekiq gem of the bundle (the baseline)") { options[:sidekiq] = true }
        p.on("--compare", "Run the real gem too and print its figures beside drop-in mode's") { options[:compare] = true }
        p.on("--plugin NAME", "A plugin's own suite (#{Plugins::Catalog.names.join(", ")}, or all) on the gem and " \
          "drop-in mode; SIDEKIQ_SRC is then the plugin's source tree (default: tmp/plugins/src/NAME-VERSION)") { |n| options[:plugin] = n }
        p.on("--failures", "List each failing test with the first line of its reason") { options[:failures] = true }
        p.on("--timeout SECONDS", Integer, "Stop a file after this long (120; a plugin's 600)") { |s| options[:timeout] = s }
        p.on("--logs DIR", "Keep each file's whole output in DIR") { |d| options[:logs] = File.expand_path(d) }
      end
      @parser.parse!(argv)
      options[:timeout] ||= options[:plugin] ? 600 : 120
      options
    end

    def usage(message)
      warn "bin/conformance: #{message}\n#{@parser}"
      2
    end

    def select(files, wanted)
      return files if wanted.empty?
      chosen = wanted.map do |name|
        files.find { |f| [f, File.basename(f), File.basename(f, ".rb"), File.basename(f, "_test.rb")].include?(name) } or
          raise ArgumentError, "no test file #{name.inspect}; known: #{files.map { |f| File.basename(f, "_test.rb") }.join(", ")}"
      end
      chosen.uniq
    end

    def with_redis(dir)
      redis = Deckhand::DevRedis.start(dir: File.join(dir, "redis"), persistent: false)
      yield redis.url
    ensure
      redis&.stop
    end

    # The file runs in a fresh Ruby with only the bundle's gems: drop-in
    # mode without the sidekiq gem's group, the baseline with it.
    # The bundle is the one bin/conformance runs in: Deckhand's Gemfile, or
    # another Ruby's (BUNDLE_GEMFILE and BUNDLE_PATH set by its root).
    def run_file(root, file, url, options)
      env = BUNDLE.merge("REDIS_URL" => url, "RUBYOPT" => nil)
      env["BUNDLE_WITHOUT"] = "compat" unless options[:sidekiq]
      preload = File.join(PRELOAD, options[:sidekiq] ? "sidekiq_gem.rb" : "deckhand_sidekiq.rb")
      command = [RbConfig.ruby, "-I", PRELOAD, "-Itest", "-r", preload, file]
      output, status, timed_out = Bundler.with_unbundled_env { capture(env, command, root, options[:timeout]) }
      save_log(options[:logs], "#{"sidekiq-" if options[:sidekiq]}#{file}", output)
      summary = Summary.parse(file, local_paths(output, root), exit_status: status&.exitstatus, timed_out: timed_out)
      warn format("%-40s %s", file, summary.loaded? ? "#{summary.passes}/#{summary.runs}" : "load error") unless options[:markdown]
      summary
    end

    # Paths as a reader of the table knows them: the Sidekiq tree's and
    # Deckhand's relative, a gem's from its own folder.
    def local_paths(output, root)
      output.gsub("#{root}/", "").gsub("#{ROOT}/", "").gsub(%r{/\S+/gems/(?=[\w.-]+-\d)}, "")
    end

    def capture(env, command, root, timeout)
      Open3.popen2e(env, *command, chdir: root, pgroup: true) do |stdin, out, waiter|
        stdin.close
        reader = Thread.new { out.read }
        finished = waiter.join(timeout)
        unless finished
          Process.kill("KILL", -waiter.pid)
          waiter.join
        end
        [reader.value, waiter.value, !finished]
      end
    end

    def save_log(dir, file, output)
      return unless dir
      FileUtils.mkdir_p(dir)
      File.write(File.join(dir, file.tr("/", "_").sub(/\.rb\z/, ".log")), output)
    end

    def compare(baseline, summaries, options)
      table = Comparison.new(baseline, summaries)
      puts(options[:markdown] ? table.markdown : table.text)
      report_failures(summaries) if options[:failures]
    end

    def report(summaries, options)
      table = Table.new(summaries)
      puts(options[:markdown] ? table.markdown : table.text)
      report_failures(summaries) if options[:failures]
    end

    def report_failures(summaries)
      summaries.each do |s|
        s.problems.each { |name, reason| puts "#{s.file}: #{name}: #{reason}" }
      end
    end
  end
end

exit Conformance::Runner.run(ARGV)
