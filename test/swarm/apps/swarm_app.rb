# frozen_string_literal: true

# The application the swarm tests boot with `deckhand -P 2 -r`. Jobs record
# the pid they ran in under `swarm:` keys in Redis, where the test reads them.

require "deckhand"
require "deckhand/swarm"
require "redis_client"
require "connection_pool"

module SwarmApp
  # Opened lazily, so each worker opens its own after the fork.
  def self.redis = @redis ||= RedisClient.new(url: ENV.fetch("REDIS_URL"))

  # Each load of this file leaves a line: the supervisor loads it, the workers must not.
  File.write(ENV["SWARM_LOADS"], "#{Process.pid}\n", mode: "a") if ENV["SWARM_LOADS"]

  # Workers die at boot while this file is missing (the backoff test creates it).
  Deckhand::Swarm.on_worker_boot do |index|
    gate = ENV["SWARM_BOOT_GATE"]
    exit!(3) if gate && !File.exist?(gate)
    # A worker that outgrows the supervisor as it boots (the application's
    # own connections, caches): SWARM_BOOT_BALLAST megabytes more.
    HogJob::HELD << ("x" * (Integer(ENV["SWARM_BOOT_BALLAST"]) * 1024 * 1024)) if ENV["SWARM_BOOT_BALLAST"]
    redis.call("HSET", "swarm:booted", Process.pid, index)
  end

  # Records its pid; sleeps a little so both workers take some.
  class PidJob
    include Deckhand::Job

    def perform(seconds)
      sleep seconds
      SwarmApp.redis.call("RPUSH", "swarm:pids", Process.pid)
    end
  end

  # Runs for a while; its jid goes to swarm:started, then swarm:finished.
  class SlowJob
    include Deckhand::Job

    deckhand_options queue: "slow"

    def perform(seconds)
      SwarmApp.redis.call("RPUSH", "swarm:started", "#{jid}:#{Process.pid}")
      sleep seconds
      SwarmApp.redis.call("RPUSH", "swarm:finished", jid)
    end
  end

  # Waits until its worker begins to stop, and says whether it noticed.
  class PatientJob
    include Deckhand::Job

    def perform
      SwarmApp.redis.call("RPUSH", "swarm:started", jid)
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 30
      sleep 0.01 until Deckhand::Lifecycle.stopping? || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
      SwarmApp.redis.call("RPUSH", "swarm:noticed", Deckhand::Lifecycle.stopping?.to_s)
    end
  end

  # Grows the worker it runs in by `megabytes` and keeps it.
  class HogJob
    include Deckhand::Job

    HELD = []

    def perform(megabytes)
      HELD << ("x" * (megabytes * 1024 * 1024))
      SwarmApp.redis.call("RPUSH", "swarm:hogged", Process.pid)
    end
  end
end
