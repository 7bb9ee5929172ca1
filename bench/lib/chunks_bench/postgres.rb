# frozen_string_literal: true

require "fileutils"
require "socket"
require "tmpdir"

module ChunksBench
  # A private PostgreSQL for one bench run: a fresh cluster in a scratch
  # directory, listening only on a Unix socket there (named by a free
  # port), stopped and removed at the end. Debian's postgresql package
  # (`apt-get install postgresql`) provides the binaries. PostgreSQL refuses
  # to run as root, so as root the cluster belongs to the package's
  # `postgres` user.
  #
  #   ChunksBench::Postgres.open do |pg|
  #     pg.conninfo   # => "host=/tmp/... port=41234 dbname=postgres user=bench"
  #     pg.version    # => "PostgreSQL 15.18"
  #   end
  class Postgres
    USER = "postgres" # the package's system user, when the bench runs as root

    def self.open
      server = new.start
      yield server
    ensure
      server&.stop
    end

    attr_reader :port, :dir

    def start
      @dir = Dir.mktmpdir("deckhand-bench-pg")
      @port = free_port
      FileUtils.chown_R(USER, nil, @dir) if root?
      run(bin("initdb"), "-D", data, "-U", "bench", "--auth=trust", "-E", "UTF8", "--no-sync")
      run(bin("pg_ctl"), "-D", data, "-l", File.join(@dir, "server.log"), "-w", "-o",
        "-p #{@port} -k #{@dir} -c listen_addresses='' -c max_connections=100", "start")
      self
    end

    def stop
      run(bin("pg_ctl"), "-D", data, "-m", "fast", "-w", "stop") if @dir && File.exist?(File.join(data, "postmaster.pid"))
    ensure
      FileUtils.rm_rf(@dir) if @dir
    end

    def conninfo = "host=#{@dir} port=#{@port} dbname=postgres user=bench"

    def version = `#{bin("postgres")} --version`.strip.sub(/\Apostgres \(PostgreSQL\) /, "PostgreSQL ")

    private

    def data = File.join(@dir, "data")

    def root? = ::Process.uid.zero?

    def run(*command)
      command = ["runuser", "-u", USER, "--", *command] if root?
      system(*command, out: File::NULL, exception: true)
    end

    # Debian keeps the binaries under /usr/lib/postgresql/<version>/bin.
    def bin(name)
      found = Dir["/usr/lib/postgresql/*/bin/#{name}"].max_by { |path| path[%r{postgresql/(\d+)}, 1].to_i }
      found or raise "bench/chunks.rb needs PostgreSQL: apt-get update && apt-get install postgresql (#{name} not found)"
    end

    def free_port
      server = TCPServer.new("127.0.0.1", 0)
      server.addr[1]
    ensure
      server&.close
    end
  end
end
