# frozen_string_literal: true

# Jobs the Rails tests run. Each records what happened in RailsJobs::LOG (in
# the test process) and in the Redis list rails:log (for a separate server).
module RailsJobs
  LOG = Queue.new

  def self.record(*entry)
    LOG << entry
    RedisClient.new(url: ENV.fetch("REDIS_URL")).then { |r| r.call("RPUSH", "rails:log", JSON.generate(entry)).tap { r.close } }
  end

  # Whether the job runs inside the Rails executor: true or false (Rails
  # 8.1's answer is nil for a thread the executor never ran on).
  def self.in_executor? = Rails.application.executor.active? || false

  class Flaky < StandardError; end

  class Doomed < StandardError; end

  class Unwanted < StandardError; end

  # Runs its jobs in chunks (docs/chunks.md); fails the member named "bad".
  class ChunkedSyncJob < ApplicationJob
    extend Deckhand::Job::Declarations

    deckhand_options chunk: {size: 10, wait: 0.3}, retry: 3
    CALLS = Queue.new

    def perform_chunk(chunk)
      CALLS << chunk.args
      chunk.each { |(name, _at), job| chunk.fail(job, ArgumentError.new("no #{name}")) if name == "bad" }
    end

    def perform(name, at) = CALLS << [[name, at]]
  end

  class GreetJob < ApplicationJob
    queue_as :mailers

    def perform(name, options = {})
      RailsJobs.record("greet", name, options, executions, provider_job_id, RailsJobs.in_executor?)
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

  # Deckhand's retry option and rules on an Active Job class.
  class CountedJob < ApplicationJob
    extend Deckhand::Job::Declarations

    deckhand_options retry: 1, backtrace: 3
    deckhand_retry_in { |count, _error, _payload| 1000 + count }
    deckhand_retries_exhausted { |payload, error| RailsJobs.record("exhausted", payload["wrapped"], error.message) }

    def perform(label) = raise(Doomed, "#{label} failed")
  end

  # Runs in either fleet (Deckhand or a real Sidekiq process) and says which.
  class CrossingJob < ApplicationJob
    queue_as :crossing

    def perform(label) = RailsJobs.record("crossing", label, provider_job_id, ::Process.pid)
  end

  # A plain Deckhand job in the Rails app, for push-after-commit.
  class NativeJob
    include Deckhand::Job

    def perform(label)
      RailsJobs.record("native", label, RailsJobs.in_executor?)
    end
  end

  # Reports whether the adapter says the server is stopping.
  class StoppingJob < ApplicationJob
    def perform
      RailsJobs.record("stopping", queue_adapter.stopping?)
    end
  end

  # A workflow step (docs/workflows.md): records its run and its parents'
  # results, returns its own.
  class StepJob < ApplicationJob
    def perform(label, n)
      RailsJobs.record("step", label, Deckhand::Workflow.results_of)
      {"label" => label, "n" => n}
    end
  end

  # A workflow step that fails its first run; retry_on sends it back.
  class FlakyStepJob < ApplicationJob
    retry_on Flaky, wait: 0, attempts: 3

    def perform(label)
      RailsJobs.record("flaky-step", label, executions)
      raise Flaky, "run #{executions}" if executions < 2
      "#{label} after #{executions} runs"
    end
  end

  # A workflow step with keyword arguments: records what it was given.
  class KeywordStepJob < ApplicationJob
    def perform(label, count:, tag: "none", **more)
      RailsJobs.record("keywords", label, count, tag, more)
      {"label" => label, "count" => count}
    end
  end

  # A keyword step that fails its first run; retry_on sends it back with
  # its keywords.
  class FlakyKeywordStepJob < ApplicationJob
    retry_on Flaky, wait: 0, attempts: 3

    def perform(label, count:)
      RailsJobs.record("flaky-keywords", label, count, executions)
      raise Flaky, "run #{executions}" if executions < 2
      count
    end
  end

  # Adds keyword steps to its own workflow as it runs.
  class KeywordFanOutJob < ApplicationJob
    def perform(label)
      flow = Deckhand::Workflow.current
      flow.add(KeywordStepJob, "#{label}-one", count: 1, tag: "current")
      flow.add_many(KeywordStepJob, [Deckhand::Workflow.args("#{label}-two", count: 2, name: "kept")])
      label
    end
  end

  # Workflow steps run in chunks: each member's result is its number twice.
  class ChunkedStepJob < ApplicationJob
    extend Deckhand::Job::Declarations

    deckhand_options chunk: {size: 10, wait: 0.3}

    def perform_chunk(chunk)
      RailsJobs.record("chunk", chunk.args)
      chunk.each { |(n), job| chunk.result(job, 2 * n) }
    end

    def perform(n) = raise(ArgumentError, "runs in chunks: #{n}")
  end
end
