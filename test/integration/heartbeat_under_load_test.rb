# frozen_string_literal: true

require "test_helper"

# A process busy with CPU-bound jobs is alive: its heartbeat must keep beating,
# or the reaper would take its jobs and run them twice.
class HeartbeatUnderLoadTest < Minitest::Test
  class HogJob
    include Deckhand::Job

    class << self
      attr_accessor :release
    end

    # Pure Ruby arithmetic, never sleeping nor waiting on I/O, until released.
    def perform
      Deckhand::TestJobs.record(:hogging)
      x = 0
      x += 1 until HogJob.release
      Deckhand::TestJobs.record(x)
    end
  end

  def setup
    super
    HogJob.release = false
    Deckhand.config = new_config(concurrency: 2, heartbeat_interval: 0.2, heartbeat_ttl: 2, timeout: 2)
  end

  def teardown
    HogJob.release = true
    super
  end

  def test_the_heartbeat_keeps_beating_while_every_thread_hogs_the_cpu
    2.times { HogJob.perform_async }
    with_server do |launcher|
      wait_for(timeout: 30, message: "both hogs running") { Deckhand::TestJobs.runs.count(:hogging) == 2 }
      beats = []
      wait_for(message: "five heartbeats during the hogging") do
        beat = redis.call("HGET", launcher.identity, "beat")
        beats << beat unless beats.last == beat
        beats.size > 5
      end
      assert_equal 2, redis.call("HGET", launcher.identity, "busy").to_i
      HogJob.release = true
    end
  end
end
