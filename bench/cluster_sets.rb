# frozen_string_literal: true

# What the data API's reads of the retry set cost in cluster mode (three
# queues' shards, one per primary) against plain mode (one sorted set), the
# same entries in both: size, pages at the start, a quarter in, the middle
# and the end (cluster mode seeks where the page starts in each shard, then
# reads a page from each: Store::Sets::Seek), reading every entry, a count, a
# find by jid and a fetch by key. Milliseconds, the median of five reads.
# Figures: bench/results/2026-11-23-cluster-sets.md.
#
#   bundle exec ruby bench/cluster_sets.rb [entries per queue]     # default 10,000
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
$LOAD_PATH.unshift(File.expand_path("../lib", __dir__))
require "tmpdir"
require "etc"
require "json"
require "deckhand"
require "deckhand/api"
require "deckhand/dev_redis"
require "deckhand/dev_redis/local_cluster"

module ClusterSetsBench
  QUEUES = %w[default mail billing].freeze # one on each primary

  module_function

  # Entries of the three queues interleaved by score, as retries would be.
  def fill(store, per_queue)
    keys = store.layout
    QUEUES.each_with_index do |queue, q|
      store.call("SADD", keys::QUEUES, queue)
      per_queue.times.each_slice(1_000) do |slice|
        entries = slice.flat_map do |i|
          [1_000 + (i * 3) + q, JSON.generate("class" => "ReportJob", "args" => [i], "jid" => "j#{q}-#{i}", "queue" => queue, "error_class" => "E#{i % 7}")]
        end
        store.call("ZADD", keys.retry_set(queue), *entries)
      end
    end
  end

  def ms(rounds = 5)
    times = Array.new(rounds) do
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      yield
      (Process.clock_gettime(Process::CLOCK_MONOTONIC) - started) * 1000
    end
    times.sort[rounds / 2]
  end

  def run(redis, per_queue)
    config = Deckhand::Config.new(redis: redis)
    fill(config.store, per_queue)
    set = Deckhand::API.new(config).retries
    pages = (set.size + 24) / 25
    key = set.page(pages / 2, 1).first.key
    {
      "size" => ms { set.size },
      "page 1 of 25" => ms { set.page(1, 25) },
      "page #{pages / 4} (a quarter in)" => ms { set.page(pages / 4, 25) },
      "page #{pages / 2} (the middle)" => ms { set.page(pages / 2, 25) },
      "page #{pages} (the last)" => ms { set.page(pages, 25) },
      "each_entry (every entry)" => ms(1) { set.each_entry { nil } },
      "count_matching" => ms { set.count_matching("E3") },
      "find_jid (the last entry)" => ms { set.find_jid("j2-#{per_queue - 1}") },
      "fetch by key" => ms { set.fetch(key) }
    }
  ensure
    config&.store&.shutdown
  end
end

per_queue = Integer(ARGV.first || 10_000)
dir = Dir.mktmpdir("deckhand-cluster-sets-bench")
plain = Deckhand::DevRedis.start(dir: File.join(dir, "plain").tap { |d| FileUtils.mkdir_p(d) }, persistent: false)
cluster = Deckhand::DevRedis::LocalCluster.start(dir: File.join(dir, "cluster").tap { |d| FileUtils.mkdir_p(d) }, primaries: 3, replicas: 0)
begin
  version = plain.server_version
  puts "Ruby #{RUBY_VERSION}, #{version}, #{Etc.nprocessors} cores, load #{File.read("/proc/loadavg").split.first(3).join(" ")}"
  puts "#{per_queue * 3} retries over #{ClusterSetsBench::QUEUES.join(", ")}; milliseconds"
  plain_ms = ClusterSetsBench.run({url: plain.url}, per_queue)
  cluster_ms = ClusterSetsBench.run({cluster: cluster.urls}, per_queue)
  puts "#{" " * 32} #{"plain".rjust(10)} #{"cluster".rjust(10)}"
  plain_ms.each_key { |label| puts format("%-32s %10.1f %10.1f", label, plain_ms[label], cluster_ms[label]) }
ensure
  cluster.stop
  plain.stop
  FileUtils.rm_rf(dir)
end
