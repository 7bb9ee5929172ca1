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

  # The work of one record: read the employee, write what the sync changed.
  def self.sync_one(emp_no)
    POOL.with do |pg|
      row = pg.exec_params("SELECT emp_no, salary FROM employees WHERE emp_no = $1", [emp_no]).first
      pg.exec_params("UPDATE employees SET salary = $2, synced_at = clock_timestamp() WHERE emp_no = $1", [emp_no, row["salary"].to_i + 1])
    end
  end

  # The same work for many records, in two statements.
  def self.sync_many(ids)
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
  Sidekiq.configure_server { |config| config.logger.level = Logger::WARN }

  class SyncEmployeeJob
    include Sidekiq::Job

    def perform(emp_no) = ChunksBench.sync_one(emp_no)
  end
else
  require_relative "../../lib/deckhand"
  Deckhand.config.logger.level = Logger::WARN

  # One job a record, run one at a time.
  class SyncEmployeeJob
    include Deckhand::Job

    def perform(emp_no) = ChunksBench.sync_one(emp_no)
  end

  # One job a record, run up to 1,000 a call.
  class ChunkedSyncEmployeeJob
    include Deckhand::Job

    deckhand_options chunk: {size: 1000, wait: 0.5}

    def perform_chunk(chunk) = ChunksBench.sync_many(chunk.args.map(&:first))
  end

  # 1,000 ids a job, chunked by hand at the push.
  class SyncEmployeesJob
    include Deckhand::Job

    def perform(ids) = ChunksBench.sync_many(ids)
  end
end
