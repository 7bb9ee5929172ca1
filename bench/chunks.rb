# frozen_string_literal: true

# Chunked jobs against a real database: `ruby bench/chunks.rb [--quick] [--rounds N] [--fail-percent P]`.
#
# A private PostgreSQL (Debian's postgresql package; the bench starts it on
# a free port and removes it after) holds an employees table; each row of
# the table below syncs every employee once (read the row, write it back)
# with one server process of 15 threads, against one fresh private
# redis-server:
#
#   1. Sidekiq 7.3, one job a record (`perform(emp_no)`);
#   2. Deckhand, one job a record, the same job;
#   3. Deckhand, the same pushes (one job a record), run by a class with
#      `chunk: {size: 1000, wait: 0.5}`: one `perform_chunk` reads and writes
#      up to 1,000 rows in two statements;
#   4. Deckhand, 1,000 ids a job, chunked by hand at the push, the same two
#      statements a job.
#
# With --fail-percent P (1 by default; 0 for none), P % of the records fail
# their first sync (the job raises; in row 3, `chunk.fail` names the member)
# and are retried a second later (each system's retry set and poller, set to
# 1 s): a record's job retries alone in rows 1 to 3, and row 4's job of
# 1,000 ids retries whole. The ledger: every failing record failed once
# (its fail_once row dated), every record synced once; "failed runs" are the
# failures Redis counted (stat:failed).
#
# The jobs are pushed before the server starts; "run" is the time between
# the first row written or failed and the last row written, by PostgreSQL's clock, so neither the
# pushes nor the server's boot count ("boot to done" counts both the boot
# and, in row 3, the chunks' last `wait` for jobs that no longer come). Every employee's salary goes up by
# exactly one per run, which the bench checks (a record synced twice or
# never fails it). The pg gem is no dependency of Deckhand's bundle: the
# bench installs it under tmp/pg-gem the first time.
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
require "etc"
require "rbconfig"
require_relative "lib/chunks_bench/pg_loader"
ChunksBench::PgLoader.install!
ChunksBench::PgLoader.require_pg
require_relative "../lib/deckhand"
require_relative "../lib/deckhand/dev_redis"
require_relative "lib/chunks_bench/postgres"
require "sidekiq"

module ChunksBench
  ROOT = File.expand_path("..", __dir__)
  APP = File.join(ROOT, "bench/app/chunks_app.rb")
  THREADS = 15
  CHUNK = 1000
  # Seconds before a failed record's retry (both systems' retry and poller).
  RETRY_IN = 1

  Row = Struct.new(:label, :system, :klass, :args)

  ROWS = [
    Row.new("Sidekiq #{Sidekiq::VERSION}, one job a record", "sidekiq", "SyncEmployeeJob", ->(ids) { ids.zip }),
    Row.new("Deckhand, one job a record", "deckhand", "SyncEmployeeJob", ->(ids) { ids.zip }),
    Row.new("Deckhand, one job a record, chunk: {size: #{CHUNK}}", "deckhand", "ChunkedSyncEmployeeJob", ->(ids) { ids.zip }),
    Row.new("Deckhand, #{CHUNK} ids a job (by hand)", "deckhand", "SyncEmployeesJob", ->(ids) { ids.each_slice(CHUNK).to_a.zip })
  ].freeze

  # One bench run: PostgreSQL and Redis up, each row `rounds` times, the table.
  class Bench
    def initialize(records:, rounds:, fail_percent:)
      @records = records
      @rounds = rounds
      @fail_percent = fail_percent
      @failed_runs = Hash.new { |h, k| h[k] = [] }
      @times = Hash.new { |h, k| h[k] = [] }
      @pushes = Hash.new { |h, k| h[k] = [] }
      @walls = Hash.new { |h, k| h[k] = [] }
    end

    def call
      Postgres.open do |pg|
        @pg = pg
        @db = PG.connect(pg.conninfo)
        @db.exec("SET client_min_messages = warning")
        seed
        redis_dir = Dir.mktmpdir("deckhand-bench-redis")
        @redis_server = Deckhand::DevRedis.start(dir: redis_dir, persistent: false)
        @redis = RedisClient.new(url: @redis_server.url, timeout: 30)
        @rounds.times do |round|
          ROWS.each_with_index { |row, i| measure(row, i, round) }
        end
        report
      ensure
        @redis&.close
        @redis_server&.stop
        FileUtils.rm_rf(redis_dir) if redis_dir
      end
    end

    private

    def seed
      @db.exec("CREATE TABLE employees (emp_no int PRIMARY KEY, first_name text NOT NULL, last_name text NOT NULL, " \
        "hire_date date NOT NULL, salary int NOT NULL, synced_at timestamptz)")
      @db.exec("INSERT INTO employees SELECT n, 'First' || n, 'Last' || n, date '2000-01-01' + (n % 9000), 40000 + n % 50000, NULL " \
        "FROM generate_series(10001, #{10_000 + @records}) AS n")
      @db.exec("VACUUM ANALYZE employees")
      @db.exec("CREATE TABLE fail_once (emp_no int PRIMARY KEY, failed_at timestamptz)")
    end

    # The records that fail their first sync this round: those whose
    # emp_no % 100 is below fail_percent, spread over the table (each job
    # of row 4 holds some).
    def plant_failures
      @db.exec("DELETE FROM fail_once")
      @db.exec("INSERT INTO fail_once SELECT emp_no, NULL FROM employees WHERE emp_no % 100 < #{@fail_percent}")
      @db.exec("SELECT count(*) FROM fail_once").getvalue(0, 0).to_i
    end

    def measure(row, index, round)
      @db.exec("UPDATE employees SET synced_at = NULL")
      @db.exec("VACUUM employees")
      salaries = @db.exec("SELECT sum(salary) FROM employees").getvalue(0, 0).to_i
      failing = plant_failures
      @redis.call("FLUSHALL")
      jobs = row.args.call((10_001..10_000 + @records).to_a)
      started = monotonic
      push(row, jobs)
      @pushes[index] << monotonic - started
      spawned = monotonic
      server = spawn_server(row)
      begin
        wait_until_synced(server)
        @walls[index] << monotonic - spawned
      ensure
        stop(server)
      end
      seconds = @db.exec("SELECT extract(epoch FROM max(synced_at) - least(min(synced_at), (SELECT min(failed_at) FROM fail_once))) " \
        "FROM employees").getvalue(0, 0).to_f
      check(row, salaries, failing)
      @times[index] << seconds
      @failed_runs[index] << @redis.call("GET", "stat:failed").to_i
      puts format("round %d  %-50s %7d jobs  run %7.3f s  failed runs %d", round + 1, row.label, jobs.size, seconds, @failed_runs[index].last)
    end

    def push(row, jobs)
      jobs.each_slice(10_000) do |slice|
        item = {"class" => row.klass, "queue" => "default", "args" => slice}
        if row.system == "sidekiq"
          sidekiq_client.push_bulk(item)
        else
          deckhand_client.push_bulk(item)
        end
      end
    end

    def sidekiq_client = @sidekiq_client ||= Sidekiq::Client.new(pool: Sidekiq::RedisConnection.create(url: @redis_server.url, size: 1))

    def deckhand_client = @deckhand_client ||= Deckhand::Client.new(config: Deckhand::Config.new(redis: {url: @redis_server.url}))

    def spawn_server(row)
      env = {"REDIS_URL" => @redis_server.url, "BENCH_PG" => @pg.conninfo, "BENCH_SYSTEM" => row.system,
             "BENCH_FAIL" => @fail_percent.positive? ? "1" : "0", "BENCH_RETRY_IN" => RETRY_IN.to_s,
             "BENCH_THREADS" => THREADS.to_s, "BUNDLE_GEMFILE" => ENV["BUNDLE_GEMFILE"], "APP_ENV" => "production",
             "RUBYOPT" => "#{ENV["RUBYOPT"]} -rbundler/setup".strip}
      exe = (row.system == "sidekiq") ? Gem.bin_path("sidekiq", "sidekiq") : File.join(ROOT, "exe/deckhand")
      log = File.join(Dir.tmpdir, "deckhand-bench-chunks-#{row.system}.log")
      ::Process.spawn(env, RbConfig.ruby, exe, "-r", APP, "-c", THREADS.to_s, "-q", "default", in: File::NULL, out: log, err: [:child, :out])
    end

    def wait_until_synced(pid)
      deadline = monotonic + 900
      loop do
        done = @db.exec("SELECT count(*) FROM employees WHERE synced_at IS NOT NULL").getvalue(0, 0).to_i
        return if done == @records
        raise "the server exited before every record was synced (#{done} of #{@records})" if ::Process.waitpid(pid, ::Process::WNOHANG)
        raise "not every record synced in 900 s (#{done} of #{@records})" if monotonic > deadline
        sleep 0.05
      end
    end

    def stop(pid)
      ::Process.kill("TERM", pid)
      ::Process.wait(pid)
    rescue Errno::ESRCH, Errno::ECHILD
      nil
    end

    # Each employee synced exactly once: its salary rose by one; and each
    # failing one failed its first sync.
    def check(row, before, failing)
      after = @db.exec("SELECT sum(salary) FROM employees").getvalue(0, 0).to_i
      unless after - before == @records
        raise "#{row.label}: salaries rose by #{after - before} for #{@records} records: a record was synced twice or never"
      end
      left = @db.exec("SELECT count(*) FROM fail_once WHERE failed_at IS NULL").getvalue(0, 0).to_i
      raise "#{row.label}: #{left} of #{failing} failing records never met their failure" unless left.zero?
    end

    def report
      medians = @times.transform_values { |list| list.sort[list.size / 2] }
      lines = ["| | jobs pushed | push s | run s | records/s | vs row 1 | vs row 4 | boot to done s | failed runs |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
      ROWS.each_with_index do |row, i|
        run = medians[i]
        jobs = (i == 3) ? (@records.to_f / CHUNK).ceil : @records
        push = @pushes[i].sort[@pushes[i].size / 2]
        wall = @walls[i].sort[@walls[i].size / 2]
        failed = @failed_runs[i].sort[@failed_runs[i].size / 2]
        lines << format("| %d. %s | %d | %.2f | %.3f | %d | %.1fx faster | %.2fx | %.2f | %d |", i + 1, row.label, jobs, push, run,
          @records / run, medians[0] / run, run / medians[3], wall, failed)
      end
      row3_vs_4 = medians[2] / medians[3]
      row3_vs_1 = medians[0] / medians[2]
      verdict = "row 3 is #{format("%.2f", row3_vs_4)}x row 4 (goal: within 1.5x) and #{format("%.1f", row3_vs_1)}x faster than row 1 (goal: 20x)"
      text = [stamp, "", *lines, "", verdict].join("\n")
      puts "", text
      path = File.join(ROOT, "bench/results", "#{Time.now.utc.strftime("%Y-%m-%d-%H%M")}-chunks.md")
      File.write(path, "# bench/chunks.rb\n\n#{text}\n")
      puts "", "saved #{path.delete_prefix("#{ROOT}/")}"
    end

    def stamp
      commit = `git -C #{ROOT} rev-parse --short HEAD 2>/dev/null`.strip
      redis = Deckhand::DevRedis.server_version(@redis.call("INFO", "server"))
      load = File.read("/proc/loadavg").split.first(3).join(" ") if File.exist?("/proc/loadavg")
      ["#{@records} employees (#{@fail_percent} % failing once, retried after #{RETRY_IN} s), #{THREADS} threads, #{@rounds} round(s), medians; Ruby #{RUBY_VERSION}#{" +YJIT" if defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled?},",
        "#{redis}, #{@pg.version}, pg #{PG::VERSION}, Sidekiq #{Sidekiq::VERSION}, Deckhand #{Deckhand::VERSION} at #{commit},",
        "#{Etc.nprocessors} cores, load #{load}."].join(" ")
    end

    def monotonic = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)
  end
end

records = ARGV.include?("--quick") ? 10_000 : 100_000
rounds = ARGV.include?("--rounds") ? Integer(ARGV[ARGV.index("--rounds") + 1]) : 1
fail_percent = ARGV.include?("--fail-percent") ? Integer(ARGV[ARGV.index("--fail-percent") + 1]) : 1
abort "bench/chunks.rb: --fail-percent takes 0 to 100" unless (0..100).cover?(fail_percent)
ChunksBench::Bench.new(records: records, rounds: rounds, fail_percent: fail_percent).call
