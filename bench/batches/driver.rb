# frozen_string_literal: true

module BatchBench
  # Seeds the records, starts one server child, times the four runs and
  # prints them. Wall time runs from the first push to the moment the last
  # record is imported: seen by the batch's success callback, or for plain
  # jobs by polling the count of imported records every few milliseconds.
  class Driver
    ROOT = File.expand_path("../..", __dir__)
    RUNS = [["1 job per record", :one, false], ["1 job per record", :one, true],
      ["1 job per slice", :slice, false], ["1 job per slice", :slice, true]].freeze

    Result = Struct.new(:label, :batched, :jobs, :wall, :push, :redis_cpu, :server_cpu)

    def initialize(lab, records:, threads:, slice:, rounds:)
      @rounds = rounds
      @lab = lab
      @records = records
      @threads = threads
      @slice = slice
      @redis = lab.redis
      @config = Deckhand::Config.new(redis: {url: lab.url})
      Deckhand.config = @config
    end

    def run
      stamp
      seed
      server = @server = start_server
      # Plain and batch runs alternate, so a change in the machine's load
      # weighs on both; with several rounds each figure is the median.
      results = RUNS.each_slice(2).flat_map do |pair|
        runs = Array.new(@rounds) do
          pair.map { |label, shape, batched| measure(label.sub("slice", "#{@slice} records"), shape, batched).tap { |r| report(r) } }
        end
        runs.transpose.map { |list| list.sort_by(&:wall)[list.size / 2] }
      end
      puts "Medians:" if @rounds > 1
      results.each { |r| report(r) } if @rounds > 1
      summary(results)
    ensure
      server&.stop
    end

    private

    def stamp
      puts "Batches benchmark: #{@records} records, #{@threads} threads, one server process, #{@rounds} round(s)"
      puts "Ruby: #{RUBY_DESCRIPTION}"
      puts "Server: #{@lab.server_version}; cores: #{Etc.nprocessors}; load: #{File.read("/proc/loadavg").split.first(3).join(" ")}"
      puts "Commit: #{`git -C #{ROOT} rev-parse --short HEAD`.strip}"
    end

    def seed
      @lab.fresh!
      (1..@records).each_slice(10_000) do |ids|
        rows = ids.flat_map do |i|
          [i, JSON.generate({"email" => "User#{i}@Example.com", "name" => " User #{i} ", "amount" => i * 1.5})]
        end
        @redis.call("HSET", RECORDS, *rows)
      end
    end

    def start_server
      argv = [*@lab.ruby, File.join(ROOT, "exe", "deckhand"), "-r", File.join(ROOT, "bench", "batches.rb"),
        "-c", @threads.to_s, "-q", QUEUE, "-q", "default"]
      env = {"REDIS_URL" => @lab.url, "APP_ENV" => "production"}
      server = DeckhandBench::ServerChild.new(argv, env: env, dir: @lab.dir, log: File.join(@lab.dir, "server.log")).start
      wait("the server to start") do
        server.check_alive!
        @redis.call("SCARD", "processes").positive?
      end
      server
    end

    def measure(label, shape, batched)
      @redis.call("DEL", IMPORTED, DONE)
      cpu = redis_cpu
      server_cpu = server_cpu_now
      started = Time.now.to_f
      push_started = monotonic
      jobs = batched ? push_batch(shape, label) : push(shape)
      pushed = monotonic - push_started
      finished = batched ? callback_time : imported_time
      raise "only #{@redis.call("HLEN", IMPORTED)} of #{@records} records imported" unless @redis.call("HLEN", IMPORTED) == @records
      Result.new(label, batched, jobs, finished - started, pushed, redis_cpu - cpu, server_cpu_now - server_cpu)
    end

    def push(shape)
      if shape == :one
        ImportOne.perform_bulk(Array.new(@records) { |i| [i + 1] }).size
      else
        ImportSlice.perform_bulk((1..@records).each_slice(@slice).map { |ids| [ids.first, ids.last] }).size
      end
    end

    def push_batch(shape, label)
      batch = Deckhand::Batch.new
      batch.description = "bench: #{label}"
      batch.on(:success, Finished, "run" => label)
      batch.jobs { push(shape) }.size
    end

    def callback_time
      reply = @redis.blocking_call(600, "BLPOP", DONE, 600) or raise "no success callback within 600 s"
      JSON.parse(reply[1])["at"]
    end

    def imported_time
      wait("every record to be imported", sleep: 0.005) { @redis.call("HLEN", IMPORTED) == @records }
      Time.now.to_f
    end

    def redis_cpu
      info = @redis.call("INFO", "cpu")
      info[/used_cpu_user:([\d.]+)/, 1].to_f + info[/used_cpu_sys:([\d.]+)/, 1].to_f
    end

    # Server CPU (user + system) of the child, from /proc: unlike wall time
    # it does not grow when other processes share the cores.
    def server_cpu_now
      fields = File.read("/proc/#{@server.pid}/stat").split(") ", 2).last.split
      (fields[11].to_i + fields[12].to_i) / Etc.sysconf(Etc::SC_CLK_TCK).to_f
    end

    def report(r)
      rate = (r.jobs / r.wall).round
      printf("%-24s %-5s %7d jobs  wall %7.2f s (%5d jobs/s)  push %5.2f s  CPU/job: server %6.1f us, Redis %6.1f us\n",
        r.label, r.batched ? "batch" : "plain", r.jobs, r.wall, rate, r.push, r.server_cpu / r.jobs * 1e6, r.redis_cpu / r.jobs * 1e6)
    end

    def summary(results)
      results.each_slice(2) do |plain, batched|
        per_job = ->(field) { (batched[field] - plain[field]) / plain.jobs * 1e6 }
        printf("%-24s batch overhead per job: wall %+.0f us (%+.1f %%), server CPU %+.1f us, Redis CPU %+.1f us, push %+.1f us\n",
          plain.label, per_job.call(:wall), (batched.wall / plain.wall - 1) * 100, per_job.call(:server_cpu),
          per_job.call(:redis_cpu), per_job.call(:push))
      end
    end

    def wait(what, timeout: 600, sleep: 0.05)
      deadline = monotonic + timeout
      until yield
        raise "timed out waiting for #{what}" if monotonic > deadline
        Kernel.sleep(sleep)
      end
    end

    def monotonic = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)
  end
end
