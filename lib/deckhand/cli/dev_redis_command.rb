# frozen_string_literal: true

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
    class DevRedisCommand
      include Command

      USAGE = "Usage: deckhand dev-redis [status|start|stop]\n\n" \
        "This project's development Redis: started by the first deckhand process that needs one,\n" \
        "shared by every later one (address in #{DevRedis::Project::DIR}/redis.url).\n"

      def run
        project = DevRedis::Project.new
        case @argv
        in [] | ["status"] then status(project)
        in ["start"] then start(project)
        in ["stop"] then stop(project)
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

      def stop(project)
        @out.puts(project.stop ? "stopped the development Redis (its data stays in #{project.data_dir})" : "no development Redis was running")
        0
      end
    end
  end
end
