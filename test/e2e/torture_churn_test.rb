# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require_relative "../../torture/support/fleet"

# The torture suite's churn step (Torture::Fleet#replace_one) against real
# server processes: it kills only once every server is up, so a loaded
# machine's slow boots cannot leave the fleet with no server working or
# reaping (a kill every second killed each replacement the moment it booted),
# and never picks a server still booting (scenario 9 crashed on one: nil.pid).
# The replacement starts as the server it replaces.
class TortureChurnTest < Minitest::Test
  TIMING = {heartbeat_interval: 0.5, heartbeat_ttl: 2}.freeze

  def setup
    super
    @dir = Dir.mktmpdir("torture-churn")
    url = Deckhand::RedisHarness.url
    @fleet = Torture::Fleet.new(dir: @dir, redis_url: url, ledger_url: url, settings: TIMING)
  end

  def teardown
    @fleet.alive.each { |m| ::Process.kill("KILL", m.pid) && ::Process.waitpid(m.pid) }
    FileUtils.rm_rf(@dir)
    super
  end

  def test_a_churn_step_waits_for_every_server_and_replaces_its_victim_in_kind
    marked = @fleet.spawn(concurrency: 2, wait: false, env: {"TORTURE_MARK" => "first"})
    assert_nil step, "a kill while the only server boots"
    @fleet.ready(marked)
    other = @fleet.spawn(concurrency: 2, wait: false) # boots in a second or more; the step comes at once
    assert_nil step, "a kill while one of two servers boots"
    assert_empty @fleet.kills
    @fleet.ready(other)

    assert_same marked, step(pick: ->(up) { up.find { |m| m.equal?(marked) } })
    replacement = @fleet.members.last
    assert_equal [marked.pid], @fleet.kills.map(&:first)
    refute_nil marked.status, "the victim was reaped"
    assert_equal marked.options, replacement.options, "the replacement starts as the server it replaces"
    assert_nil step, "a kill while the replacement boots"

    @fleet.ready(replacement)
    refute_nil step, "every server up again: the next kill goes ahead"
  end

  private

  def step(pick: nil) = @fleet.replace_one(random: Random.new(1), processes: 2, pick: pick)
end
