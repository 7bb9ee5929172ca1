# frozen_string_literal: true

require_relative "redis_meter"

module DeckhandBench
  # A RedisMeter on every primary of a Redis Cluster: what a run cost each
  # shard (CPU of its main thread, commands), next to the jobs whose queues
  # it serves.
  #
  #   meter = ShardMeter.new(cluster.primaries).start
  #   ... run the server until the jobs are done ...
  #   shards = meter.finish(jobs_by_port)  # => [Shard(port, jobs, cost), ...]
  #   shards.first.cpu_us_per_job          # => 1.9
  class ShardMeter
    Shard = Struct.new(:port, :jobs, :cost) do
      def cpu_us_per_job = jobs.positive? ? cost.cpu_seconds * 1_000_000 / jobs : nil

      def top = jobs.positive? ? cost.top(4) : []
    end

    def initialize(nodes)
      @clients = nodes.to_h { |node| [node.port, RedisClient.new(url: node.url, timeout: 30)] }
      @meters = @clients.transform_values { |client| RedisMeter.new(client) }
    end

    def start
      @meters.each_value(&:start)
      self
    end

    # jobs_by_port: port => jobs its queues held. Closes the connections.
    def finish(jobs_by_port)
      @meters.map do |port, meter|
        jobs = jobs_by_port.fetch(port, 0)
        Shard.new(port, jobs, meter.finish(jobs: [jobs, 1].max))
      end
    ensure
      @clients.each_value(&:close)
    end
  end
end
