# frozen_string_literal: true

require "tmpdir"
require "fileutils"
require_relative "../errors"
require_relative "../dev_redis/project"
require_relative "command"

module Deckhand
  class CLI
    # `deckhand dev-redis`: this project's development Redis (DevRedis::Project),
    # the one every `deckhand`, `deckhand web` and pushing application of the
    # project shares in development.
    #
    #   deckhand dev-redis          # prints its URL, or says none runs (exit 1)
    #   deckhand dev-redis start    # starts it unless it runs; prints its URL
    #   deckhand dev-redis stop     # stops it (its data stays in tmp/deckhand/redis)
    #   deckhand dev-redis cluster  # a development Redis Cluster in the foreground,
    #                               # until Ctrl-C (DevRedis::LocalCluster)
    class DevRedisCommand
      include Command

      USAGE = "Usage: deckhand dev-redis [status|start|stop]\n" \
        "       deckhand dev-redis cluster [PRIMARIES [REPLICAS]]\n\n" \
        "This project's development Redis: started by the first deckhand process that needs one,\n" \
        "shared by every later one (address in #{DevRedis::Project::DIR}/redis.url).\n\n" \
        "cluster: a private Redis Cluster on free loopback ports (3 primaries, no replica by default)\n" \
        "for trying cluster mode; it prints the REDIS_URL to use and runs until Ctrl-C, which ends it\n" \
        "and deletes its files.\n"

      def run
        project = DevRedis::Project.new
        case @argv
        in [] | ["status"] then status(project)
        in ["start"] then start(project)
        in ["stop"] then stop(project)
        in ["cluster", *sizes] if sizes.size <= 2 && sizes.all? { |size| size.match?(/\A\d+\z/) }
          cluster(*sizes.map(&:to_i))
        in ["-h" | "--help" | "help"] then @out.puts(USAGE) || 0
        else
          @err.puts("deckhand dev-redis: unknown command #{@argv.join(" ").inspect}\n#{USAGE}")
          1
        end
      rescue Error, SystemCallError => e
        report("deckhand dev-redis", e)
      end

      private

      def status(project)
        url = project.running_url
        return @out.puts("#{url} (running; data in #{project.data_dir})") || 0 if url
        @out.puts("no development Redis runs for this project (#{project.dir}); the first deckhand process starts one")
        1
      end

      def start(project)
        url, started = project.find_or_start
        @out.puts("#{url} (#{started ? "started" : "already running"}; data in #{project.data_dir})")
        0
      end

      def cluster(primaries = 3, replicas = 0)
        require_relative "../dev_redis/local_cluster"
        raise ConfigError, "a cluster needs at least one primary" if primaries < 1
        dir = Dir.mktmpdir("deckhand-cluster")
        cluster = DevRedis::LocalCluster.start(dir: dir, primaries: primaries, replicas: replicas)
        @out.puts("REDIS_URL=#{cluster.urls.first(primaries).join(",")}")
        @out.puts("a development Redis Cluster: #{primaries} primaries, #{replicas} replicas each; Ctrl-C ends it")
        @out.flush
        wait_for_interrupt
        0
      ensure
        cluster&.stop
        FileUtils.rm_rf(dir) if dir
      end

      # Until INT or TERM; the signal is trapped so the cluster is stopped.
      def wait_for_interrupt
        reader, writer = IO.pipe
        previous = %w[INT TERM].to_h { |signal| [signal, trap(signal) { writer.write_nonblock(".", exception: false) }] }
        reader.read(1)
      ensure
        previous&.each { |signal, handler| trap(signal, handler || "DEFAULT") }
        [reader, writer].each { |io| io&.close }
      end

      def stop(project)
        @out.puts(project.stop ? "stopped the development Redis (its data stays in #{project.data_dir})" : "no development Redis was running")
        0
      end
    end
  end
end
