# frozen_string_literal: true

module DeckhandBench
  # What a run cost Redis, read from Redis itself: commands executed (INFO
  # commandstats, which counts the commands a Lua script runs as well as the
  # script call) and CPU time of the thread that executes commands (INFO cpu).
  # Start it after the jobs are pushed, so the pushes are not counted.
  #
  #   meter = RedisMeter.new(redis).start
  #   ... run the server until the jobs are done ...
  #   cost = meter.finish(jobs: 100_000)
  #   cost.commands_per_job   # => 0.21
  #   cost.ceiling            # => jobs/s one Redis core could feed
  class RedisMeter
    # Commands the bench itself sends while measuring (its BLPOP for the
    # report, progress LLENs, these INFOs); no server under test sends them
    # per job.
    HARNESS = %w[info blpop llen config|resetstat].freeze

    # by_command: name => [calls, microseconds Redis spent in them]. Time
    # spent inside a script counts both for the script and its commands.
    Cost = Struct.new(:jobs, :commands, :cpu_seconds, :by_command, keyword_init: true) do
      def commands_per_job = commands.fdiv(jobs)

      def cpu_us_per_job = cpu_seconds * 1_000_000 / jobs

      # Jobs per second one Redis core could feed at this cost.
      def ceiling = cpu_seconds.positive? ? jobs / cpu_seconds : Float::INFINITY

      # The commands Redis spent most time in, per job: [["evalsha", calls, µs], ...]
      def top(count = 6)
        by_command.sort_by { |_, (_, usec)| -usec }.first(count).map { |name, (calls, usec)| [name, calls.fdiv(jobs), usec.fdiv(jobs)] }
      end
    end

    def initialize(redis)
      @redis = redis
    end

    def start
      @redis.call("CONFIG", "RESETSTAT")
      @cpu = cpu_seconds
      self
    end

    # `extra` names harness commands sent during the run by other means, like
    # the probe's one RPUSH of its report: {"rpush" => 1}.
    def finish(jobs:, extra: {})
      cpu = cpu_seconds - @cpu
      stats = commandstats.except(*HARNESS)
      extra.each { |name, count| stats[name] = [stats[name][0] - count, stats[name][1]] if stats.key?(name) }
      Cost.new(jobs: jobs, commands: stats.values.sum(&:first), cpu_seconds: cpu, by_command: stats)
    end

    # name => [calls, usec]
    def commandstats
      @redis.call("INFO", "commandstats").scan(/^cmdstat_(\S+?):calls=(\d+),usec=(\d+)/).to_h do |name, calls, usec|
        [name, [calls.to_i, usec.to_i]]
      end
    end

    # CPU seconds of Redis' main thread (all threads where that is not reported).
    def cpu_seconds
      info = @redis.call("INFO", "cpu")
      main = %w[used_cpu_sys_main_thread used_cpu_user_main_thread].map { |k| info[/^#{k}:([\d.]+)/, 1] }
      main = %w[used_cpu_sys used_cpu_user].map { |k| info[/^#{k}:([\d.]+)/, 1] } if main.any?(&:nil?)
      main.sum(&:to_f)
    end
  end
end
