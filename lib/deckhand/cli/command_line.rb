# frozen_string_literal: true

require "optparse"

module Deckhand
  class CLI
    # Parses the command line into a Hash of settings (only those given).
    class CommandLine # :nodoc:
      BANNER = <<~TEXT
        Usage: deckhand [options]
               deckhand web [-p PORT] [-b HOST]     serves the dashboard (see deckhand web -h)
               deckhand migrate --check [APP_ROOT]  what a Sidekiq app needs to run on Deckhand
               deckhand dev-redis [start|stop]      this project's development Redis
               deckhand dev-redis cluster           a development Redis Cluster, until Ctrl-C
               deckhand top                         a live view of queues and processes (q quits)
               deckhand placement [rebalance|move]  cluster mode: which primary holds each queue
               deckhand cancel JID...               cancels jobs wherever they are, running ones too
               deckhand classes [pause|resume NAME] pauses job classes: their jobs wait, their queues run

        Runs a Deckhand server: loads your application and works its job queues.
        Redis comes from REDIS_URL, the config file, or (outside production, when
        nothing answers on 127.0.0.1:6379) this project's development Redis: started
        by the first process that needs it, its address in tmp/deckhand/redis.url.

      TEXT

      def self.parse(argv) = new.parse(argv)

      def parse(argv)
        options = {queues: [], capsules: []}
        stray = parser(options).parse!(argv.dup)
        # A mistyped or retired subcommand must not boot a server.
        raise ConfigError, "unexpected argument #{stray.first.inspect}: deckhand takes options only (see deckhand --help)" if stray.any?
        options.delete(:queues) if options[:queues].empty?
        options.delete(:capsules) if options[:capsules].empty?
        options
      rescue OptionParser::ParseError => e
        raise ConfigError, "#{e.message} (see deckhand --help)"
      end

      private

      def parser(o)
        OptionParser.new do |p|
          p.banner = BANNER
          p.on("-r", "--require PATH", "File to require, or a Rails app directory (default: ./config/environment.rb when present)") { |v| o[:require] = v }
          p.on("-c", "--concurrency N", Integer, "Threads in the default capsule (default: 10)") { |v| o[:concurrency] = v }
          p.on("-q", "--queue NAME[,WEIGHT]", "Queue to work, repeatable; weights make the order weighted-random") { |v| o[:queues] << v }
          p.on("-g", "--capsule NAME:THREADS:Q1,Q2", "Extra thread pool with its own queues, repeatable") { |v| o[:capsules] << parse_capsule(v) }
          p.on("-P", "--processes N", "Worker processes forked from one supervisor: a number, or auto (one per core; default: 1)") { |v| o[:processes] = v }
          p.on("--max-memory MB", Integer, "Replace a worker process whose resident memory passes MB megabytes (runs a supervisor)") { |v| o[:max_memory] = v }
          p.on("-t", "--timeout SECONDS", Float, "Shutdown grace period before jobs are handed back (default: 25)") { |v| o[:timeout] = v }
          p.on("-C", "--config FILE", "YAML config file, ERB allowed (default: ./config/deckhand.yml when present)") { |v| o[:config_file] = v }
          p.on("-e", "--environment ENV", "Application environment (default: APP_ENV, RAILS_ENV, RACK_ENV or development)") { |v| o[:environment] = v }
          p.on("--log-format FORMAT", %w[plain json], "Log lines as plain text (default) or JSON") { |v| o[:log_format] = v }
          p.on("-v", "--verbose", "Log at debug level") { o[:verbose] = true }
          p.on("-V", "--version", "Print the version and exit") { o[:version] = true }
          p.on("-h", "--help", "Show this help") { o[:help] = p.help }
        end
      end

      def parse_capsule(value)
        name, threads, queues = value.split(":", 3)
        raise ConfigError, "--capsule #{value.inspect}: write NAME:THREADS:QUEUE1,QUEUE2, like cpu:1:reports" unless name && threads && queues
        count = Integer(threads, 10)
        {"name" => name, "concurrency" => count, "queues" => queues.split(",").map { |q| q.tr("=", ",") }}
      rescue ArgumentError
        raise ConfigError, "--capsule #{value.inspect}: THREADS must be a whole number, like cpu:1:reports"
      end
    end
  end
end
