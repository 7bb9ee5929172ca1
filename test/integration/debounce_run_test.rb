# frozen_string_literal: true

require "test_helper"

# Debounce end to end, with a server in this process: each burst of pushes
# of a key runs once, with the last push's args, its wait after that push.
class DebounceRunTest < Minitest::Test
  WAIT = 0.4

  class TypingJob
    include Deckhand::Job

    deckhand_options debounce: {key: ->(args) { args.first }, wait: WAIT}

    def perform(*args)
      Deckhand::TestJobs.record([Process.clock_gettime(Process::CLOCK_MONOTONIC), args])
    end
  end

  def setup
    super
    Deckhand.config = new_config(concurrency: 2, heartbeat_interval: 0.1, scheduler_interval: 0.05, timeout: 2)
  end

  # Pushes `count` times, `gap` seconds apart; returns when the last went.
  def burst(key, count, gap: 0.05)
    count.times do |n|
      sleep gap unless n.zero?
      TypingJob.perform_async(key, n)
    end
    monotonic
  end

  def test_each_burst_runs_once_after_its_last_push
    with_server do
      first = burst("doc-1", 5)
      other = burst("doc-2", 2)
      wait_for(message: "the first bursts' runs") { Deckhand::TestJobs.runs.size >= 2 }
      sleep WAIT * 2 # long enough for a second run of either burst to show
      second = burst("doc-1", 3)
      wait_for(message: "the second burst's run") { Deckhand::TestJobs.runs.size >= 3 }
      sleep WAIT * 2
      runs = Deckhand::TestJobs.runs.each_with_index.sort_by { |(_, (key, _)), i| [key, i] }.to_h { |(ran, args), _| [args, ran] }
      assert_equal [["doc-1", 4], ["doc-1", 2], ["doc-2", 1]], runs.keys, "one run per burst, with its last push's args"
      [first, second, other].zip(runs.values).each do |pushed, ran|
        assert_operator ran - pushed, :>=, WAIT - 0.05, "a run waits its wait after the last push (Redis' clock, ms)"
      end
      assert_equal 0, redis.call("ZCARD", "schedule")
    end
  end
end
