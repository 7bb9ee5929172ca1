# frozen_string_literal: true

# The application the torture suite's servers load with `deckhand -r`. Every
# job writes to the ledger, a Redis of its own outside the system under test:
# a start before its work and a finish after it.
require "deckhand"
require "redis_client"
require_relative "support/driver_redis"

Deckhand.configure do |config|
  config.reaper_interval = Float(ENV["TORTURE_REAPER_INTERVAL"]) if ENV["TORTURE_REAPER_INTERVAL"]
end

module Torture
  module Record
    module_function

    # One connection per processor thread; they live as long as the process.
    def ledger = Thread.current[:torture_ledger] ||= Torture.redis(ENV.fetch("TORTURE_LEDGER_URL"))

    def entry(jid) = "#{jid} #{Process.pid} #{Time.now.to_f}"

    def start(jid) = ledger.call("RPUSH", "ledger:starts", entry(jid))

    def finish(jid)
      ledger.pipelined do |pipe|
        pipe.call("RPUSH", "ledger:finishes", entry(jid))
        pipe.call("SADD", "ledger:done", jid)
      end
    end

    # An entry stamped by the ledger's clock (its Redis' TIME), with the
    # process's own Time.now after it: a server run under libfaketime
    # (scenario 17) reads a skewed clock, so its entries are timed by the
    # ledger's, and the skew is measured from the two, never assumed.
    STAMP = <<~LUA
      local t = redis.call('TIME')
      redis.call('RPUSH', KEYS[1], ARGV[1] .. ' ' .. t[1] .. '.' .. string.format('%06d', tonumber(t[2])) .. ' ' .. ARGV[2])
    LUA

    # `extra`: a last field after the process's clock.
    def stamped(key, jid, pipe = ledger, extra: nil)
      pipe.call("EVAL", STAMP, 1, key, "#{jid} #{Process.pid}", [format("%.6f", Time.now.to_f), extra].compact.join(" "))
    end

    # Also counts the jobs each process is running (ledger:running), so a
    # scenario can kill a server while it runs one. `queued`: when the job
    # entered its queue (its enqueued_at, by the fleet's clock), kept after
    # the start: a scheduled job's lateness is told apart into the
    # scheduler's part and the fetch's.
    def stamped_start(jid, queued: nil)
      ledger.pipelined do |pipe|
        stamped("ledger:starts", jid, pipe, extra: queued && format("%.6f", queued))
        pipe.call("HINCRBY", "ledger:running", Process.pid, 1)
      end
    end

    def stamped_finish(jid)
      ledger.pipelined do |pipe|
        stamped("ledger:finishes", jid, pipe)
        pipe.call("SADD", "ledger:done", jid)
        pipe.call("HINCRBY", "ledger:running", Process.pid, -1)
      end
    end
  end

  # Works for `ms` milliseconds (sleeping, as I/O-bound jobs do).
  class WorkJob
    include Deckhand::Job

    def perform(ms)
      Record.start(jid)
      sleep(ms / 1000.0) if ms.positive?
      Record.finish(jid)
    end
  end

  # WorkJob's work in chunks (docs/chunks.md, scenario 20): each member's
  # start and finish in the books, and the chunk's size; the members' work
  # is one sleep as long as theirs together, so the churn lasts as long as
  # scenario 1's and a kill cuts chunks while they run.
  class ChunkWorkJob
    include Deckhand::Job

    deckhand_options chunk: {size: 100, wait: 0.05}

    def perform_chunk(chunk)
      jids = chunk.jobs.map { |job| job["jid"] }
      Record.ledger.pipelined do |pipe|
        pipe.call("RPUSH", "ledger:starts", *jids.map { |jid| Record.entry(jid) })
        pipe.call("RPUSH", "ledger:chunks", jids.size)
      end
      sleep(chunk.args.sum(&:first) / 1000.0)
      Record.ledger.pipelined do |pipe|
        pipe.call("RPUSH", "ledger:finishes", *jids.map { |jid| Record.entry(jid) })
        pipe.call("SADD", "ledger:done", *jids)
      end
    end
  end

  # Raised by a job whose write to the books failed (on a loaded machine
  # the ledger's reply can come past its connection's timeout, the write
  # made): the job fails and is retried, as any failed job is, and its
  # second start is told from a double by this class in its server's log.
  class BooksUnreachable < StandardError; end

  # WorkJob timed by the ledger's clock (Record.stamped): scenario 17's jobs,
  # some of them on a server whose clock is skewed.
  class ClockJob
    include Deckhand::Job

    def perform(ms)
      Record.stamped_start(jid, queued: enqueued_at)
      sleep(ms / 1000.0) if ms.positive?
      Record.stamped_finish(jid)
    rescue RedisClient::Error => e
      raise BooksUnreachable, "a write to the books failed: #{e.class}: #{e.message}"
    end

    private

    # Seconds since the epoch (the payload may carry milliseconds).
    def enqueued_at
      at = deckhand_payload&.fetch("enqueued_at", nil)
      return nil unless at.is_a?(Numeric)
      (at > 10_000_000_000) ? at / 1000.0 : at.to_f
    end
  end

  # Counts the runs of its one argument, an id of its own for each job
  # scenario 18 pushes: a job pushed twice shows as an id run twice.
  class TaggedJob
    include Deckhand::Job

    deckhand_options queue: "bulk"

    def perform(id)
      Record.start(jid)
      Record.ledger.call("HINCRBY", "ledger:runs", id, 1)
      Record.finish(jid)
    end
  end

  # Kills the process running it, as the OOM killer or a segfault would.
  class PillJob
    include Deckhand::Job

    def perform
      Record.start(jid)
      Process.kill("KILL", Process.pid)
      sleep 10
    end
  end

  # Records the Ruby class its argument arrived as: JSON must never build
  # objects from a payload, whatever keys it holds.
  class ProbeJob
    include Deckhand::Job

    def perform(arg)
      Record.start(jid)
      Record.ledger.call("RPUSH", "ledger:probe", arg.class.name)
      Record.finish(jid)
    end
  end
end
