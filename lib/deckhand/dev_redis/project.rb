# frozen_string_literal: true

require "fileutils"
require "socket"
require_relative "../dev_redis"

module Deckhand
  class DevRedis
    # One development Redis per project. The first process that needs one
    # (`deckhand`, `deckhand web`, an application pushing jobs in development)
    # starts a redis-server with its data under tmp/deckhand/redis and writes
    # its address to tmp/deckhand/redis.url; every later process of the project
    # reads that file and, when the Redis there answers PING, uses it. A lock
    # (tmp/deckhand/redis.lock, flock) makes a second process wait for the
    # first rather than start a second server on the same data directory. It
    # outlives the process that started it: `deckhand dev-redis stop` ends it.
    #
    #   project = Deckhand::DevRedis::Project.new(Dir.pwd)
    #   project.url           # => "redis://127.0.0.1:40123/0", started if none runs
    #   project.running_url   # => the same, or nil when none runs
    #   project.stop          # => true when one was running
    class Project # :nodoc:
      DIR = "tmp/deckhand"
      STOP_WAIT = 10

      # The Redis options a process uses when it was given none: in
      # development, this project's Redis unless one answers on the default
      # 127.0.0.1:6379; elsewhere the options unchanged (redis-client then
      # connects to 127.0.0.1:6379, as it always has).
      def self.fill_in(redis, environment, root: Dir.pwd)
        return redis unless redis.empty? && environment == "development"
        project = new(root)
        url = project.running_url
        return {url: url} if url
        return redis if DevRedis.answering?
        url, started = project.find_or_start
        if started
          warn "deckhand: started this project's development Redis at #{url} (#{project.url_file}); " \
            "`deckhand dev-redis stop` ends it, REDIS_URL uses another"
        end
        {url: url}
      end

      attr_reader :dir

      def initialize(root = Dir.pwd)
        @dir = File.join(File.expand_path(root), DIR)
      end

      def url_file = File.join(@dir, "redis.url")

      def pid_file = File.join(@dir, "redis.pid")

      def data_dir = File.join(@dir, "redis")

      # The recorded URL when the recorded process lives and answers there,
      # else nil (a crashed server's port may since belong to another Redis).
      def running_url
        url = read(url_file)
        pid = read(pid_file)&.to_i
        url if url && pid && alive?(pid) && DevRedis.answering?(url: url)
      end

      def url = find_or_start.first

      # [url, true when this call started it]
      def find_or_start
        locked do
          url = running_url
          next [url, false] if url
          redis = DevRedis.new(dir: data_dir, port: previous_port).start(detach: true)
          write(pid_file, redis.pid.to_s)
          write(url_file, redis.url)
          [redis.url, true]
        end
      end

      # Stops the project's Redis (TERM: it writes its append-only file and
      # exits). Returns false when none was running.
      def stop
        locked do
          url = running_url
          pid = read(pid_file)&.to_i
          next false unless url && pid
          ::Process.kill("TERM", pid)
          wait_until_gone(pid, url)
          FileUtils.rm_f([url_file, pid_file])
          true
        rescue Errno::ESRCH
          FileUtils.rm_f([url_file, pid_file])
          false
        end
      end

      private

      def locked
        FileUtils.mkdir_p(@dir)
        File.open(File.join(@dir, "redis.lock"), File::RDWR | File::CREAT, 0o644) do |lock|
          lock.flock(File::LOCK_EX)
          yield
        end
      end

      # The port it had last time, when free: the URL stays the same across restarts.
      def previous_port
        port = read(url_file)&.[](/:(\d+)/, 1)&.to_i
        return nil unless port
        TCPServer.new("127.0.0.1", port).close
        port
      rescue SystemCallError
        nil
      end

      def wait_until_gone(pid, url)
        deadline = Monotonic.now + STOP_WAIT
        while alive?(pid) || DevRedis.answering?(url: url)
          raise ConnectionError, "the development Redis (pid #{pid}) did not stop within #{STOP_WAIT} s" if Monotonic.now > deadline
          sleep 0.05
        end
      end

      # Running: a zombie (exited, its parent not yet told) has stopped.
      def alive?(pid)
        ::Process.kill(0, pid)
        !File.read("/proc/#{pid}/stat").split(") ").last.start_with?("Z")
      rescue Errno::ENOENT
        true # no /proc (macOS): signal 0 said it exists
      rescue Errno::ESRCH, Errno::EPERM
        false
      end

      def read(path)
        text = File.exist?(path) ? File.read(path).strip : ""
        text.empty? ? nil : text
      end

      # Written whole or not at all: a reader never sees half a URL.
      def write(path, text)
        File.write("#{path}.tmp", text)
        File.rename("#{path}.tmp", path)
      end
    end
  end
end
