# frozen_string_literal: true

# Jobs the Rails tests run. Each records what happened in RailsJobs::LOG (in
# the test process) and in the Redis list rails:log (for a separate server).
module RailsJobs
  LOG = Queue.new

  def self.record(*entry)
    LOG << entry
    RedisClient.new(url: ENV.fetch("REDIS_URL")).then { |r| r.call("RPUSH", "rails:log", JSON.generate(entry)).tap { r.close } }
  end

  class Flaky < StandardError; end

  class Doomed < StandardError; end

  class Unwanted < StandardError; end

  class GreetJob < ApplicationJob
    queue_as :mailers

    def perform(name, options = {})
      RailsJobs.record("greet", name, options, executions, provider_job_id, Rails.application.executor.active?)
    end
  end

  # Fails until its third run; retry_on sends it back twice.
  class FlakyJob < ApplicationJob
    retry_on Flaky, wait: 0, attempts: 3

    def perform(key)
      RailsJobs.record("flaky", key, executions)
      raise Flaky, "run #{executions}" if executions < 3
    end
  end

  # Always fails: retry_on gives up after 2 attempts and lets the error through.
  class DoomedJob < ApplicationJob
    retry_on Doomed, wait: 0, attempts: 2

    def perform
      RailsJobs.record("doomed", executions)
      raise Doomed, "no luck"
    end
  end

  class DiscardedJob < ApplicationJob
    discard_on Unwanted

    def perform
      RailsJobs.record("discarded", executions)
      raise Unwanted, "not wanted"
    end
  end

  # Hands what it saw to the test in memory (no Redis: the wrapper's
  # allocation test counts around it).
  class SeenJob < ApplicationJob
    SEEN = Queue.new

    def perform(*args) = SEEN << [provider_job_id, args]
  end

  # Fails every time; no retry_on, so Deckhand retries it.
  class BrokenJob < ApplicationJob
    def perform(*) = raise(Doomed, "broken")
  end

  # A plain Deckhand job in the Rails app, for push-after-commit.
  class NativeJob
    include Deckhand::Job

    def perform(label)
      RailsJobs.record("native", label, Rails.application.executor.active?)
    end
  end

  # Reports whether the adapter says the server is stopping.
  class StoppingJob < ApplicationJob
    def perform
      RailsJobs.record("stopping", queue_adapter.stopping?)
    end
  end
end
