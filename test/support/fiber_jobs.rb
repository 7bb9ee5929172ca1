# frozen_string_literal: true

module Deckhand
  # Counts the jobs running at once and holds each until `target` run
  # together (or 20 s pass): the highest count seen is the capsule's real
  # width. Mutex and ConditionVariable wait through the fiber scheduler, so
  # this works alike in fibers and threads.
  module Crowd
    @lock = Mutex.new
    @changed = ConditionVariable.new

    class << self
      attr_reader :widest, :full_at, :threads

      def reset
        @lock.synchronize do
          @running = @widest = 0
          @full_at = nil
          @threads = {}
        end
      end

      def enter(target)
        @lock.synchronize do
          @threads[Thread.current] = true
          @running += 1
          @widest = [@widest, @running].max
          @full_at ||= ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) if @widest >= target
          @changed.broadcast
          deadline = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) + 20
          while @widest < target && (left = deadline - ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)) > 0
            @changed.wait(@lock, left)
          end
        end
      end

      def leave = @lock.synchronize { @running -= 1 }
    end
  end
end

# Waits for `target` jobs of its kind to run together, then sleeps.
class CrowdSleepJob
  include Deckhand::Job

  def perform(target, seconds)
    Deckhand::Crowd.enter(target)
    sleep seconds
    Deckhand::TestJobs.record([jid, :slept, Fiber.scheduler ? :fiber : :thread])
  ensure
    Deckhand::Crowd.leave
  end
end

# Waits for `target` jobs of its kind, then all push a job at the same instant.
class CrowdPushJob
  include Deckhand::Job

  def perform(target, i)
    Deckhand::Crowd.enter(target)
    RecordJob.perform_async("pushed", i)
  ensure
    Deckhand::Crowd.leave
  end
end

# Reads a child's output through a pipe (a read the scheduler serves).
class PipeJob
  include Deckhand::Job

  def perform(seconds) = Deckhand::TestJobs.record([jid, `sleep #{Float(seconds)}; echo ok`])
end

# Gives up on a long wait with Timeout (the scheduler's timeout in a fiber).
class TimeoutJob
  include Deckhand::Job

  deckhand_options retry: 1

  def perform(seconds)
    Timeout.timeout(seconds) { sleep 30 }
  ensure
    Deckhand::TestJobs.record([jid, :timed])
  end
end

# Waits in Redis on a redis-client connection of its own, then records
# when its wait ended.
class BlpopJob
  include Deckhand::Job

  def perform(url, seconds)
    conn = RedisClient.new(url: url)
    conn.blocking_call(seconds + 1, "BLPOP", "blpop-job:nothing", seconds)
    Deckhand::TestJobs.record([jid, ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)])
  ensure
    conn&.close
  end
end

class HttpJob
  include Deckhand::Job

  def perform(port) = Deckhand::TestJobs.record([jid, Net::HTTP.get(URI("http://127.0.0.1:#{port}/"))])
end

# Computes without giving way: holds the reactor of a fiber capsule.
class BusyJob
  include Deckhand::Job

  def perform(seconds)
    deadline = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) + seconds
    nil while ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) < deadline
    Deckhand::TestJobs.record([jid, :busy])
  end
end
