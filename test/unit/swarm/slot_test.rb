# frozen_string_literal: true

require "test_helper"
require "deckhand/swarm"

class SwarmSlotTest < Minitest::Test
  Slot = Deckhand::Swarm::Slot

  def test_backoff_doubles_while_workers_die_at_boot_and_is_capped
    slot = Slot.new(0)
    delays = Array.new(9) do |i|
      slot.started(100 + i, 1000.0 + i * 100)
      slot.exited(1000.0 + i * 100 + 1)
    end
    assert_equal [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0], delays
    refute slot.due?(1000.0 + 800 + 1 + 29)
    assert slot.due?(1000.0 + 800 + 1 + 30)
  end

  def test_a_worker_that_ran_a_while_is_replaced_at_once_and_resets_the_count
    slot = Slot.new(1)
    slot.started(1, 0.0)
    slot.exited(1.0)
    slot.started(2, 10.0)
    assert_equal 0.0, slot.exited(10.0 + Slot::BOOT_WINDOW + 1)
    assert_equal 0, slot.failures
    assert slot.due?(21.0)
  end

  def test_settings
    settings = Deckhand::Swarm::Settings
    assert_equal Etc.nprocessors, settings.processes("auto")
    assert_equal 4, settings.processes("4")
    assert_equal 3, settings.processes(3)
    assert_raises(Deckhand::ConfigError) { settings.processes("4x") }
    refute settings.wanted?({})
    refute settings.wanted?({processes: "1"})
    assert_raises(Deckhand::ConfigError) { settings.max_memory_mb("512") }
  end

  def test_a_swarm_is_wanted_for_several_workers_or_a_memory_limit
    skip_on_jruby("the swarm forks its workers; test_the_swarm_refuses_to_start_where_ruby_cannot_fork covers JRuby")
    assert Deckhand::Swarm::Settings.wanted?({processes: 2})
    assert Deckhand::Swarm::Settings.wanted?({max_memory: 512})
  end

  def test_the_swarm_refuses_to_start_where_ruby_cannot_fork
    settings = Deckhand::Swarm::Settings
    error = assert_raises(Deckhand::ConfigError) { settings.require_fork!(can_fork: false, engine: "jruby") }
    assert_match(/\ASwarm forks worker processes; JRuby cannot fork\. Run one deckhand process per core with a supervisor \(systemd, foreman\)/, error.message)
    assert_match(/raise -c/, error.message)
    error = assert_raises(Deckhand::ConfigError) { settings.require_fork!(can_fork: false, engine: "truffleruby") }
    assert_match(/this Ruby \(truffleruby\) cannot fork/, error.message)
    assert_nil settings.require_fork!(can_fork: true, engine: "ruby")
    return unless RUBY_ENGINE == "jruby"
    # Where the user asks for it: -P / --max-memory, and Swarm.new in code.
    assert_raises(Deckhand::ConfigError) { settings.wanted?({processes: 2}) }
    assert_raises(Deckhand::ConfigError) { settings.wanted?({max_memory: 512}) }
    assert_raises(Deckhand::ConfigError) { Deckhand::Swarm.new(new_config, processes: 2) }
  end
end
