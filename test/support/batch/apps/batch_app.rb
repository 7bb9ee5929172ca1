# frozen_string_literal: true

# The application batch tests run, in the test process and in `deckhand -r`
# children alike. Jobs record what they did under `app:` keys in Redis, where
# the tests read it, whichever process ran them.

require "deckhand"

# A process SIGKILLed as a job dies, at one of two instants (the tests of a
# batch's books across a crash). "after_dead_write": right after the job's
# dead-set write, before any death handler (this one is registered before
# deckhand/batch installs its hooks). "before_dead_write": after the
# final-failure handlers registered before this one (the batch's), before
# the dead-set write.
kill_at = ENV["BATCH_APP_KILL"]
Deckhand.config.on_death { |_, _| Process.kill("KILL", Process.pid) } if kill_at == "after_dead_write"

require "deckhand/batch"
require "json"
require "redis_client"
require "connection_pool"

Deckhand.config.on_final_failure { |_, _, _| Process.kill("KILL", Process.pid) } if kill_at == "before_dead_write"

# End-to-end tests run the reaper often (the config file has no key for it).
if ENV["BATCH_APP_REAPER_INTERVAL"]
  Deckhand.configure { |config| config.reaper_interval = Float(ENV["BATCH_APP_REAPER_INTERVAL"]) }
end

module BatchApp
  # The jobs' own connections; the URL is read when the first one opens.
  POOL = ConnectionPool.new(size: 5) { RedisClient.new(url: ENV.fetch("REDIS_URL")) }

  def self.call(*command) = POOL.with { |conn| conn.call(*command) }

  # BLPOP waiting up to `seconds`: a plain call would give up at the
  # connection's 1 s read timeout and fail the job instead of holding it.
  def self.wait(key, seconds) = POOL.with { |conn| conn.blocking_call(seconds + 1, "BLPOP", key, seconds) }

  def self.runs = call("LRANGE", "app:runs", 0, -1)

  def self.callbacks = call("LRANGE", "app:callbacks", 0, -1).map { |raw| JSON.parse(raw) }

  # Records its label in app:runs.
  class Work
    include Deckhand::Job

    def perform(label) = BatchApp.call("RPUSH", "app:runs", label)
  end

  # Fails, retrying every 50 ms, until app:fixed:<label> exists.
  class Flaky
    include Deckhand::Job

    deckhand_options retry: 1_000
    deckhand_retry_in { 0.05 }

    def perform(label)
      BatchApp.call("RPUSH", "app:attempts", label)
      raise ArgumentError, "#{label} is not fixed yet" unless BatchApp.call("EXISTS", "app:fixed:#{label}") == 1
      BatchApp.call("RPUSH", "app:runs", label)
    end
  end

  # Dies on its first failure unless app:fixed:<label> exists.
  class Doomed
    include Deckhand::Job

    deckhand_options retry: 0

    def perform(label)
      raise ArgumentError, "#{label} is doomed" unless BatchApp.call("EXISTS", "app:fixed:#{label}") == 1
      BatchApp.call("RPUSH", "app:runs", label)
    end
  end

  # Waits at a gate: app:arrived gets "<label> <pid>", then it blocks until
  # the test pushes to app:gate:<label>.
  class Gate
    include Deckhand::Job

    def perform(label)
      BatchApp.call("RPUSH", "app:arrived", "#{label} #{Process.pid}")
      BatchApp.wait("app:gate:#{label}", 30) or raise "gate #{label} never opened"
      BatchApp.call("RPUSH", "app:runs", label)
    end
  end

  # Adds jobs to its own batch, and opens a child batch of it.
  class Grow
    include Deckhand::Job

    def perform(label, extra, child)
      batch = Deckhand::Batch.current or raise "#{label} runs outside a batch"
      batch.jobs do
        extra.times { |i| Work.perform_async("#{label}+#{i}") }
        next if child.zero?
        kid = Deckhand::Batch.new
        kid.description = "child of #{label}"
        kid.on(:success, Callbacks, "name" => "#{label}/child")
        kid.jobs { child.times { |i| Work.perform_async("#{label}/child+#{i}") } }
      end
      BatchApp.call("RPUSH", "app:runs", label)
    end
  end

  # Records each callback with what its status said at that moment.
  class Callbacks
    def on_success(status, options) = record("success", status, options)

    def on_complete(status, options) = record("complete", status, options)

    def on_death(status, options) = record("death", status, options)

    private

    def record(event, status, options)
      entry = {"event" => event, "bid" => status.bid, "options" => options, "total" => status.total,
               "pending" => status.pending, "failures" => status.failures, "runs" => BatchApp.call("LLEN", "app:runs")}
      BatchApp.call("RPUSH", "app:callbacks", JSON.generate(entry))
    end
  end
end
