# frozen_string_literal: true

# The employees-sync jobs of bench/chunks.rb, for the server it starts:
# BENCH_SYSTEM=sidekiq loads them on Sidekiq, anything else on Deckhand.
# Each job works on the PostgreSQL at BENCH_PG (a libpq connection string)
# through one connection per server thread.
require "logger"
require "connection_pool"
require_relative "../lib/chunks_bench/pg_loader"

ChunksBench::PgLoader.require_pg

module ChunksBench
  POOL = ConnectionPool.new(size: Integer(ENV.fetch("BENCH_THREADS", "15")), timeout: 30) { PG.connect(ENV.fetch("BENCH_PG")) }

  # A record of the fail_once table fails its first sync: the bench's 1 %
  # (--fail-percent), each failing once.
  class RecordFailed < StandardError; end

  # Seconds before the retry of a record that failed (both systems), so
  # that the drain does not wait out the default backoff.
  RETRY_IN = Integer(ENV.fetch("BENCH_RETRY_IN", "1"))

  # The ones of `ids` that fail now (their first and only failure, dated),
  # nothing when the bench runs without failures.
  def self.failing(ids)
    return [] unless ENV["BENCH_FAIL"] == "1"
    POOL.with do |pg|
      pg.exec_params("UPDATE fail_once SET failed_at = clock_timestamp() WHERE emp_no = ANY($1::int[]) AND failed_at IS NULL " \
        "RETURNING emp_no", [PG::TextEncoder::Array.new.encode(ids)]).map { |row| row["emp_no"].to_i }
    end
  end

  # The work of one record: read the employee, write what the sync changed.
  def self.sync_one(emp_no)
    raise RecordFailed, "employee #{emp_no} failed once" unless failing([emp_no]).empty?
    POOL.with do |pg|
      row = pg.exec_params("SELECT emp_no, salary FROM employees WHERE emp_no = $1", [emp_no]).first
      pg.exec_params("UPDATE employees SET salary = $2, synced_at = clock_timestamp() WHERE emp_no = $1", [emp_no, row["salary"].to_i + 1])
    end
  end

  # The same work for many records, in two statements. A job of many ids
  # by hand fails whole when one of them fails.
  def self.sync_job(ids)
    failed = failing(ids)
    raise RecordFailed, "employees #{failed.join(", ")} of #{ids.size} failed once" unless failed.empty?
    sync_many(ids)
  end

  def self.sync_many(ids)
    return if ids.empty?
    list = PG::TextEncoder::Array.new.encode(ids)
    POOL.with do |pg|
      rows = pg.exec_params("SELECT emp_no, salary FROM employees WHERE emp_no = ANY($1::int[])", [list]).to_a
      salaries = PG::TextEncoder::Array.new.encode(rows.map { |row| row["salary"].to_i + 1 })
      pg.exec_params("UPDATE employees e SET salary = s.salary, synced_at = clock_timestamp() " \
        "FROM unnest($1::int[], $2::int[]) AS s(emp_no, salary) WHERE e.emp_no = s.emp_no",
        [PG::TextEncoder::Array.new.encode(rows.map { |row| row["emp_no"].to_i }), salaries])
    end
  end
end

if ENV["BENCH_SYSTEM"] == "sidekiq"
  require "sidekiq"
  Sidekiq.configure_server do |config|
    config.logger.level = Logger::ERROR
    config.average_scheduled_poll_interval = ChunksBench::RETRY_IN
  end

  class SyncEmployeeJob
    include Sidekiq::Job

    sidekiq_retry_in { ChunksBench::RETRY_IN }

    def perform(emp_no) = ChunksBench.sync_one(emp_no)
  end
else
  require_relative "../../lib/deckhand"
  Deckhand.config.logger.level = Logger::ERROR
  Deckhand.config.scheduler_interval = ChunksBench::RETRY_IN

  # One job a record, run one at a time.
  class SyncEmployeeJob
    include Deckhand::Job

    deckhand_retry_in { ChunksBench::RETRY_IN }

    def perform(emp_no) = ChunksBench.sync_one(emp_no)
  end

  # One job a record, run up to 1,000 a call; a failing record goes to its
  # retry alone, the others are synced.
  class ChunkedSyncEmployeeJob
    include Deckhand::Job

    deckhand_options chunk: {size: 1000, wait: 0.5}
    deckhand_retry_in { ChunksBench::RETRY_IN }

    def perform_chunk(chunk)
      failed = ChunksBench.failing(chunk.args.map(&:first))
      chunk.each do |(emp_no), job|
        chunk.fail(job, ChunksBench::RecordFailed.new("employee #{emp_no} failed once")) if failed.include?(emp_no)
      end
      ChunksBench.sync_many(chunk.args.map(&:first) - failed)
    end

    def perform(emp_no) = ChunksBench.sync_one(emp_no)
  end

  # 1,000 ids a job, chunked by hand at the push: one failing id fails the job.
  class SyncEmployeesJob
    include Deckhand::Job

    deckhand_retry_in { ChunksBench::RETRY_IN }

    def perform(ids) = ChunksBench.sync_job(ids)
  end
end
