# frozen_string_literal: true

require "fileutils"
require "open3"

module Conformance
  module Plugins
    # A private copy of a plugin's source tree, its test helper adapted as the
    # catalog says (the same copy serves both runs), so the tree given is
    # never written. Without a tree given, the one under tmp/plugins/src is
    # used, fetched first from RubyGems when the gem ships its tests.
    #
    #   tree = PluginTree.new(plugin, nil).copy_to(dir)
    #   tree.test_files   # => ["spec/lib/sidekiq-status/client_middleware_spec.rb", ...]
    class PluginTree
      SOURCES = File.expand_path("../../tmp/plugins/src", __dir__)

      attr_reader :root, :source

      def initialize(plugin, source)
        @plugin = plugin
        @source = source ? File.expand_path(source) : default_source
        return if File.directory?(@source)
        raise ArgumentError, "#{@source}: no such folder; get #{plugin.name} #{plugin.version}'s source tree: #{plugin.fetch_hint}"
      end

      def copy_to(dir)
        @root = File.join(dir, @plugin.folder)
        FileUtils.mkdir_p(@root)
        Dir.children(@source).each do |entry|
          next if entry == ".git"
          FileUtils.cp_r(File.join(@source, entry), @root)
        end
        adapt
        self
      end

      def test_files = Dir.chdir(@root) { Dir[@plugin.files].sort }

      private

      def default_source
        path = File.join(SOURCES, @plugin.folder)
        fetch_gem(path) if @plugin.in_gem && !File.directory?(path)
        path
      end

      # `gem fetch` then `gem unpack`: the released gem, its tests included.
      def fetch_gem(path)
        FileUtils.mkdir_p(SOURCES)
        Dir.chdir(SOURCES) do
          gem = "#{@plugin.folder}.gem"
          run("gem", "fetch", @plugin.name, "-v", @plugin.version) unless File.exist?(gem)
          run("gem", "unpack", gem)
        end
        raise ArgumentError, "gem unpack left no #{path}" unless File.directory?(path)
      end

      def run(*command)
        output, status = Open3.capture2e(*command)
        raise ArgumentError, "#{command.join(" ")} failed: #{output.strip}" unless status.success?
      end

      # Each substitution must match: a helper of another shape (a newer
      # release) is reported, not run half adapted.
      def adapt
        @plugin.adapt.each do |file, substitutions|
          path = File.join(@root, file)
          text = File.read(path)
          substitutions.each do |pattern, replacement|
            raise ArgumentError, "#{file} of #{@plugin.folder} has nothing matching #{pattern.inspect} to adapt" unless text.match?(pattern)
            text = text.gsub(pattern, replacement)
          end
          File.write(path, text)
        end
      end
    end
  end
end
