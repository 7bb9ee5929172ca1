# frozen_string_literal: true

require "test_helper"
require "open3"
require "rbconfig"
require "deckhand/server"

# How background loops report Redis failing: a passing fault once per outage,
# a refusal that needs a human again and again until it is fixed.
class OutageTest < Minitest::Test
  def setup
    super
    @log = StringIO.new
  end

  def outage(**options) = Deckhand::Server::Outage.new(Logger.new(@log), "heartbeat", **options)

  def lines = @log.string.lines

  def test_a_passing_fault_is_logged_once_per_outage_and_its_end_once
    o = outage
    delays = Array.new(4) { o.failed(Deckhand::ConnectionError.new("Redis at redis://x refused the connection")) }
    assert_equal [0.05, 0.1, 0.25, 0.5], delays
    assert_equal 1, lines.size
    assert_match(/WARN -- : heartbeat: Redis at redis:\/\/x refused the connection; retrying/, lines.first)
    o.over
    o.over
    assert_equal 2, lines.size
    assert_match(/heartbeat: Redis answers again after 4 failed attempts/, lines.last)
  end

  def test_a_refusal_is_logged_with_its_fix_and_repeated_while_it_lasts
    o = outage(repeat: 0.05)
    error = Deckhand::CommandError.new("Redis refused ZADD on key \"retry\": WRONGTYPE. Look with redis-cli TYPE", code: "WRONGTYPE", key: "retry")
    o.failed(error)
    o.failed(error)
    assert_equal 1, lines.size
    sleep 0.06
    o.failed(error)
    assert_equal 2, lines.size
    lines.each { |line| assert_match(/ERROR -- : heartbeat: .*"retry".*retrying until this is fixed/, line) }
    assert_equal 5, Array.new(20) { o.failed(error) }.last, "the wait is capped"
  end

  def test_an_attempt_waits_out_a_redis_failure_on_the_sleeper_and_passes_other_errors_on
    o = outage
    sleeper = Deckhand::Sleeper.new
    started = Deckhand::Monotonic.now
    assert_equal true, o.attempt(sleeper) { raise Deckhand::ConnectionError, "Redis at redis://x refused the connection" }
    assert_operator Deckhand::Monotonic.now - started, :>=, 0.04, "the first delay, 0.05 s, slept on the sleeper"
    assert_match(/WARN -- : heartbeat: Redis at redis:\/\/x refused the connection; retrying/, lines.first)
    ran = false
    o.attempt(sleeper) { ran = true }
    assert ran
    assert_match(/heartbeat: Redis answers again after 1 failed attempts/, lines.last)
    assert_raises(ArgumentError) { o.attempt(sleeper) { raise ArgumentError, "not Redis" } }
    sleeper.stop
    started = Deckhand::Monotonic.now
    assert_equal false, o.attempt(sleeper) { raise Deckhand::ConnectionError, "Redis went away" }
    assert_operator Deckhand::Monotonic.now - started, :<, 0.04, "a stopped sleeper does not wait"
  end

  def test_wait_out_tries_until_redis_answers_and_tells_the_block_of_a_failed_try
    tries = []
    result = Deckhand::Server::Outage.wait_out(Logger.new(@log), "recording an outcome") do |again|
      tries << again
      raise Deckhand::ConnectionError, "Redis at redis://x refused the connection" if tries.size < 3
      :settled
    end
    assert_equal :settled, result
    assert_equal [false, true, true], tries
    assert_equal 2, lines.size
    assert_match(/WARN -- : recording an outcome: Redis at redis:\/\/x refused the connection; retrying/, lines.first)
    assert_match(/recording an outcome: Redis answers again after 2 failed attempts/, lines.last)
  end

  def test_wait_out_logs_nothing_when_redis_answers_at_once
    assert_equal 42, Deckhand::Server::Outage.wait_out(Logger.new(@log), "recording an outcome") { |again| again ? 0 : 42 }
    assert_empty lines
  end

  # The caller masks the shutdown around its writes; the wait between tries
  # lets it through, so a shutdown does not wait for Redis to come back.
  def test_wait_out_lets_the_shutdown_through_its_wait_alone
    tries = 0
    thread = Thread.new do
      Thread.handle_interrupt(Deckhand::Shutdown => :never) do
        Deckhand::Server::Outage.wait_out(Logger.new(@log), "recording an outcome") do
          tries += 1
          raise Deckhand::ConnectionError, "Redis at redis://x refused the connection"
        end
      end
    rescue Deckhand::Shutdown
      :shut_down
    end
    wait_for(timeout: 5, message: "a second try") { tries >= 2 || !thread.alive? }
    thread.raise(Deckhand::Shutdown)
    assert_equal :shut_down, thread.join(5)&.value
    assert_operator tries, :>=, 2
  ensure
    thread&.kill&.join
  end

  # A client that cancels a workflow's step (Config#on_cancelled) records it
  # with Deckhand's server left unloaded, and waits Redis out all the same.
  def test_the_features_that_wait_out_redis_load_it_themselves
    script = <<~RUBY
      require "deckhand/workflow"
      require "deckhand/batch"
      Deckhand.config.logger = Logger.new(File::NULL)
      def flaky(value) = (@failed = !@failed) ? raise(Deckhand::ConnectionError, "Redis went away") : value
      print Deckhand::Workflow::StepOutcomes.new(Deckhand.config).persist("a") { flaky(1) },
        Deckhand::Batch::Tracker.persist(Deckhand.config, "b") { flaky(2) }
    RUBY
    out, status = Open3.capture2e(RbConfig.ruby, "-w", "-I", File.expand_path("../../../lib", __dir__), "-e", script)
    assert status.success?, out
    assert_equal "12", out
  end
end
