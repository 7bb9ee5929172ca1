# frozen_string_literal: true

# The application the end-to-end tests boot with `deckhand -r`. The tests load
# it too, as a web process would, to push these jobs. Each job records what it
# did under `e2e:` keys in Redis, where the test reads it.

require "deckhand"
require "json"
require "redis_client"
require "connection_pool"

module E2E
  # The jobs' own connections, apart from Deckhand's pool. The URL is read when
  # the first connection opens, after the CLI or the test harness has set it.
  POOL = ConnectionPool.new(size: 5) { RedisClient.new(url: ENV.fetch("REDIS_URL")) }

  def self.call(*command) = POOL.with { |conn| conn.call(*command) }

  # BLPOP waiting up to `seconds`: a plain call would give up at the
  # connection's 1 s read timeout and fail the job instead of holding it.
  def self.wait(key, seconds) = POOL.with { |conn| conn.blocking_call(seconds + 1, "BLPOP", key, seconds) }

  # Counts its runs per argument: e2e:counts is n => times run.
  class CountJob
    include Deckhand::Job

    def perform(n)
      E2E.call("HINCRBY", "e2e:counts", n, 1)
    end
  end

  # Records where it ran, in order: the queue, the thread's name and its label.
  class TraceJob
    include Deckhand::Job

    def perform(label)
      entry = {"label" => label, "queue" => deckhand_payload["queue"], "thread" => Thread.current.name}
      E2E.call("RPUSH", "e2e:trace", JSON.generate(entry))
    end
  end

  # Runs for a while: its jid goes to e2e:started, and to e2e:finished if it
  # was not interrupted.
  class SlowJob
    include Deckhand::Job

    deckhand_options queue: "slow"

    def perform(seconds)
      E2E.call("RPUSH", "e2e:started", jid)
      sleep seconds
      E2E.call("RPUSH", "e2e:finished", jid)
    end
  end

  # A plain service object, no job: building it or calling it leaves a
  # mark in e2e:built, which a server must never make.
  class Canary
    def initialize = E2E.call("RPUSH", "e2e:built", "Canary.new")

    def perform(*) = E2E.call("RPUSH", "e2e:built", "Canary#perform")
  end

  # Records the wall-clock time it ran at: e2e:clock is jid => epoch seconds.
  class ClockJob
    include Deckhand::Job

    def perform
      E2E.call("HSET", "e2e:clock", jid, Time.now.to_f.to_s)
    end
  end
end
