# frozen_string_literal: true

require "test_helper"
require "deckhand/component"

# The supervision every server thread runs under: a thread that dies for any
# reason is logged and started again; one that keeps dying is fatal.
class ComponentTest < Minitest::Test
  class Flaky < Deckhand::Component
    attr_reader :laps, :recovered

    def initialize(logger, plan, **options)
      super("flaky", logger: logger, **options)
      @plan = plan
      @laps = Queue.new
      @recovered = []
      @sleeper = Deckhand::Sleeper.new
    end

    private

    def run
      step = @plan.shift
      @laps << step
      case step
      when :raise then raise ArgumentError, "boom"
      when :exit then Thread.current.exit
      else @sleeper.sleep(30)
      end
    end

    def wake = @sleeper.stop

    def recover(error) = @recovered << error
  end

  def setup
    super
    @log = StringIO.new
    @logger = Logger.new(@log)
  end

  def test_a_crashed_thread_is_logged_with_its_backtrace_and_restarted
    component = Flaky.new(@logger, %i[raise exit run], delays: [0.01]).start
    assert_equal %i[raise exit run], Array.new(3) { component.laps.pop }
    wait_for(message: "the third lap to run") { component.alive? }
    assert_match(/flaky crashed: ArgumentError: boom; restarting in 0.01s\n  .*component_test\.rb/, @log.string)
    assert_includes @log.string, "flaky crashed: its thread was ended (Thread.exit or kill)"
    assert_equal [ArgumentError, Deckhand::ThreadDied], component.recovered.map(&:class)
  ensure
    component&.stop&.join(5)
  end

  def test_a_killed_thread_is_restarted_and_a_stopped_one_is_not
    component = Flaky.new(@logger, %i[run run], delays: [0]).start
    component.laps.pop
    killed = component.thread
    killed.kill
    assert_equal :run, component.laps.pop
    # On JRuby the new thread may run its first lap before the killed one
    # has recorded it: the restarted thread is the one that is not killed.
    thread = wait_for(message: "the restarted thread recorded") { (current = component.thread) != killed && current }
    component.stop
    assert thread.join(30), "the restarted thread ends on stop"
    refute component.alive?
    assert_equal 0, component.laps.size
  end

  def test_a_component_that_keeps_crashing_is_fatal
    fatal = Queue.new
    component = Flaky.new(@logger, %i[raise raise raise run], delays: [0], max_crashes: 2,
      on_fatal: ->(c, error) { fatal << [c, error] })
    component.start
    who, error = fatal.pop
    assert_same component, who
    assert_equal "boom", error.message
    assert_equal 3, component.laps.size, "no restart after the fatal crash"
    assert_includes @log.string, "flaky crashed 3 times without a healthy minute; giving up"
  end
end
