# frozen_string_literal: true

require "test_helper"

# Deckhand::Hooks is the one event mechanism: Config::Events (a server's
# events and notices) and Lifecycle (leadership) keep their blocks in one.
class HooksTest < Minitest::Test
  def test_blocks_run_in_order_with_the_arguments_and_an_error_goes_to_the_caller
    hooks = Deckhand::Hooks.new(%i[done])
    seen = []
    hooks.add(:done, ->(n) { seen << [:first, n] })
    hooks.add(:done, ->(_) { raise "boom" })
    hooks.add(:done, ->(n) { seen << [:last, n] })
    errors = []
    hooks.run(:done, 3) { |error| errors << error.message }
    assert_equal [[:first, 3], [:last, 3]], seen
    assert_equal ["boom"], errors
    assert_raises(RuntimeError) { hooks.run(:done, 4) }
    assert_raises(ArgumentError) { hooks.add(:other, -> {}) }
  end

  def test_a_block_added_during_a_run_waits_for_the_next_one
    hooks = Deckhand::Hooks.new(%i[tick])
    calls = []
    hooks.add(:tick, -> { calls << :outer && hooks.add(:tick, -> { calls << :added }) })
    hooks.run(:tick)
    assert_equal [:outer], calls
    block = hooks.list(:tick).last
    hooks.remove(:tick, block)
    assert_equal 1, hooks.list(:tick).size
    hooks.freeze
    assert hooks.list(:tick).frozen?
  end

  def test_a_configuration_s_events_carry_the_server_s_notices_with_their_count
    config = Deckhand::Config.new
    counts = []
    config.events.on(:recovered) { |count| counts << [:recovered, count] }
    config.events.on(:poison_pill) { |count| counts << [:poison_pill, count] }
    config.events.fire(:recovered, nil, 3)
    config.events.fire(:poison_pill, nil, 1)
    assert_equal [[:recovered, 3], [:poison_pill, 1]], counts
    error = assert_raises(Deckhand::ConfigError) { config.events.on(:leader) {} }
    assert_includes error.message, ":recovered"
    assert_equal %i[startup quiet shutdown exit heartbeat beat], Deckhand::Config::Events::NAMES, "Sidekiq's lifecycle events (Sidekiq 8 added :exit)"
  end

  def test_a_startup_handler_error_stops_the_boot_and_others_are_logged
    config = Deckhand::Config.new
    config.events.on(:startup) { raise "no database" }
    config.events.on(:shutdown) { raise "flush failed" }
    config.events.on(:shutdown) { :ran }
    assert_raises(RuntimeError) { config.events.fire(:startup, Logger.new(File::NULL)) }
    log = StringIO.new
    config.events.fire(:shutdown, Logger.new(log))
    assert_includes log.string, "shutdown handler raised RuntimeError: flush failed"
  end

  # A NotImplementedError (a ScriptError) is no StandardError: it still goes
  # to the caller, and the other blocks run; the shutdown interrupt goes through.
  def test_a_block_raising_any_exception_but_the_shutdown_goes_to_the_caller
    hooks = Deckhand::Hooks.new(%i[done])
    ran = []
    hooks.add(:done, -> { raise NotImplementedError, "later" })
    hooks.add(:done, -> { ran << :second })
    errors = []
    hooks.run(:done) { |error| errors << error.class }
    assert_equal [NotImplementedError], errors
    assert_equal [:second], ran
    stopping = Deckhand::Hooks.new(%i[done])
    stopping.add(:done, -> { raise Deckhand::Shutdown })
    assert_raises(Deckhand::Shutdown) { stopping.run(:done) { |error| errors << error.class } }
    assert Deckhand::AppError === NotImplementedError.new
    refute Deckhand::AppError === Deckhand::Shutdown.new
  end

  def test_lifecycle_leader_hooks_come_and_go
    calls = []
    hook = Deckhand::Lifecycle.on(:leader) { |leading| calls << leading }
    Deckhand::Lifecycle.leader!(true)
    Deckhand::Lifecycle.off(:leader, hook)
    Deckhand::Lifecycle.leader!(false)
    assert_equal [true], calls
  ensure
    Deckhand::Lifecycle.reset!
  end
end
