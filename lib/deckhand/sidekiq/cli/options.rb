# frozen_string_literal: true

require "optparse"
require "yaml"
require "erb"

module Deckhand
  module DropIn
    # Sidekiq's command-line flags and config/sidekiq.yml, read the way the
    # sidekiq command reads them, into the option Hash Sidekiq::CLI merges
    # into its configuration: -c, -e, -g (the process tag), -q, -r, -t, -v,
    # -C, -V, -h; the file's environment section over its top level, the
    # flags over the file.
    #
    #   CliOptions.new(logger, ".").parse(%w[-c 5 -q critical,2 -q default], "production")
    #   # => {concurrency: 5, queues: ["critical,2", "default"], environment: "production", ...}
    class CliOptions
      CONFIG_FILES = %w[sidekiq.yml sidekiq.yml.erb].freeze

      # `exit` is how -V and -h end, as the sidekiq command ends.
      def initialize(logger, required, exit: ->(status) { Kernel.exit(status) })
        @logger = logger
        @required = required
        @exit = exit
      end

      attr_reader :parser

      # The flags, then the config file (-C, or config/sidekiq.yml beside the
      # application): Symbol keys, the file's environment section applied.
      def parse(argv, environment_default)
        flags = flags(argv)
        environment = flags[:environment] || environment_default
        file = flags[:config_file] || default_file(flags[:require])
        if flags[:config_file] && !File.exist?(file)
          raise ArgumentError, "No such file #{file}: -C names the YAML config file (config/sidekiq.yml)"
        end
        options = file ? read(file, environment).merge(flags) : flags
        options[:config_file] = file if file
        options.merge(environment: environment)
      end

      private

      def flags(argv)
        options = {}
        @parser = build(options)
        @parser.parse!(argv.dup)
        options
      end

      def build(o)
        OptionParser.new do |p|
          p.banner = "sidekiq [options] (Deckhand's drop-in mode)"
          p.on("-c", "--concurrency INT", "processor threads to use") { |v| o[:concurrency] = Integer(v) }
          p.on("-e", "--environment ENV", "Application environment") { |v| o[:environment] = v }
          p.on("-g", "--tag TAG", "Process tag") { |v| o[:tag] = v }
          p.on("-q", "--queue QUEUE[,WEIGHT]", "Queues to process with optional weights") { |v| (o[:queues] ||= []) << v }
          p.on("-r", "--require [PATH|DIR]", "Rails application or file to require") { |v| o[:require] = v }
          p.on("-t", "--timeout NUM", "Shutdown timeout") { |v| o[:timeout] = Integer(v) }
          p.on("-v", "--verbose", "Print more verbose output") { |v| o[:verbose] = v }
          p.on("-C", "--config PATH", "path to YAML config file") { |v| o[:config_file] = v }
          p.on("-V", "--version", "Print version and exit") do
            $stdout.puts "Sidekiq #{Sidekiq::VERSION} (Deckhand #{Deckhand::VERSION})"
            @exit.call(0)
          end
          p.on_tail("-h", "--help", "Show help") do
            @logger.info(p.to_s)
            @exit.call(1)
          end
        end
      end

      # config/sidekiq.yml (or .yml.erb) in the required directory's config/,
      # else in the configuration's require path's.
      def default_file(required)
        base = (required && File.directory?(required)) ? required : @required.to_s
        CONFIG_FILES.map { |name| File.join(base, "config", name) }.find { |path| File.exist?(path) }
      end

      # ERB sees the file's own __FILE__ and __dir__.
      def read(path, environment)
        erb = ERB.new(File.read(path), trim_mode: "-")
        erb.filename = File.expand_path(path)
        data = YAML.safe_load(erb.result, permitted_classes: [Symbol], aliases: true) || {}
        raise ArgumentError, "#{path} must hold a YAML mapping of settings" unless data.is_a?(Hash)
        data = symbolize(data)
        section = data.delete(environment.to_sym)
        data = data.merge(section) if section.is_a?(Hash)
        data.except(:strict)
      rescue Psych::Exception => e
        raise ArgumentError, "#{path} is not valid YAML: #{e.message}"
      end

      def symbolize(value)
        return value unless value.is_a?(Hash)
        value.to_h { |key, inner| [key.respond_to?(:to_sym) ? key.to_sym : key, symbolize(inner)] }
      end
    end
  end
end
