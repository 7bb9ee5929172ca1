# frozen_string_literal: true

# What a chunk's member costs the server (docs/chunks.md), with no work in
# perform_chunk and no database: one server in this process, 15 threads, a
# class with `chunk: {size: 1000, wait: 0.5}`, N members pushed before it
# starts, on a private redis-server. Prints the server process's CPU time
# and objects allocated per member, and GC's share, from the start to the
# last member run (Redis' own CPU is not counted). bench/chunks.rb measures
# the same path against PostgreSQL.
#
#   ruby bench/chunk_cost.rb                    # 100,000 members, 3 rounds
#   ruby bench/chunk_cost.rb 20000 --profile cpu  # one round under stackprof (cpu, wall or object)
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
require "logger"
require_relative "../lib/deckhand"
require_relative "../lib/deckhand/server"
require_relative "lib/deckhand_bench/lab"

module ChunkCost
  DONE = Queue.new
  RAN = [0]
  LOCK = Mutex.new

  class NoopChunkJob
    include Deckhand::Job

    deckhand_options chunk: {size: 1000, wait: 0.5}

    def perform_chunk(chunk)
      ran = LOCK.synchronize { RAN[0] += chunk.size }
      DONE << true if ran >= ChunkCost.members
    end
  end

  class << self
    attr_accessor :members

    # One round: the members pushed, a server started, until the last ran.
    def round(url, profile: nil)
      RAN[0] = 0
      DONE.clear
      push(url)
      config = Deckhand::Config.new(redis: {url: url}, concurrency: 15)
      config.logger = Logger.new(File::NULL, level: Logger::WARN)
      launcher = Deckhand::Server::Launcher.new(config.freeze!)
      GC.start
      before = [GC.stat(:total_allocated_objects), GC.stat(:time), cpu]
      StackProf.start(mode: profile.to_sym, interval: (profile == "object") ? 100 : 1000, raw: true) if profile
      launcher.start
      DONE.pop
      StackProf.stop if profile
      allocated, gc_ms, cpu_s = [GC.stat(:total_allocated_objects), GC.stat(:time), cpu].zip(before).map { |a, b| a - b }
      launcher.stop
      [cpu_s * 1e6 / members, allocated.fdiv(members), gc_ms]
    end

    def push(url)
      client = Deckhand::Client.new(config: Deckhand::Config.new(redis: {url: url}))
      (1..members).each_slice(10_000) { |slice| client.push_bulk("class" => NoopChunkJob.name, "queue" => "default", "args" => slice.zip) }
    end

    def cpu = ::Process.clock_gettime(::Process::CLOCK_PROCESS_CPUTIME_ID)
  end
end

ChunkCost.members = Integer(ARGV.first || 100_000) if ARGV.first&.match?(/\A\d+\z/)
ChunkCost.members ||= 100_000
profile = ARGV.include?("--profile") ? ARGV[ARGV.index("--profile") + 1] : nil
require "stackprof" if profile
commit = `git -C #{__dir__} rev-parse --short HEAD 2>/dev/null`.strip
puts "load average at start: #{File.read("/proc/loadavg").split.first(3).join(" ")}"
DeckhandBench::Lab.open(yjit: false) do |lab|
  puts "#{ChunkCost.members} members a round, chunks of up to 1,000, 15 threads; #{lab.server_version}, Ruby #{RUBY_VERSION}, Deckhand at #{commit}"
  rounds = (profile ? 1 : 3).times.map do |i|
    lab.fresh!
    us, objects, gc_ms = ChunkCost.round(lab.url, profile: profile)
    puts format("round %d: %.1f us of CPU a member, %.1f objects a member, GC %d ms", i + 1, us, objects, gc_ms)
    [us, objects, gc_ms]
  end
  median = rounds.transpose.map { |list| list.sort[list.size / 2] }
  puts format("median: %.1f us of CPU a member, %.1f objects a member, GC %d ms", *median)
  if profile
    dump = File.expand_path("../tmp/chunk-cost-#{profile}.dump", __dir__)
    FileUtils.mkdir_p(File.dirname(dump))
    StackProf.results(dump)
    StackProf::Report.new(Marshal.load(File.binread(dump))).print_text(false, 30)
  end
end
