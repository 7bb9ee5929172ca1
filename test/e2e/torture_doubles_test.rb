# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require_relative "../../torture/support/fleet"
require_relative "../../torture/support/ledger"
require_relative "../../torture/support/doubles"

# The torture books' rule for a job started twice (Torture::Doubles): only a
# SIGKILL of the server of its earlier start explains it. A job the killed
# server had run to its end (its finish is in the ledger) and not yet
# acknowledged is given back by the reaper and runs again, as Deckhand
# promises (at least once): a kill explains it too. Scenario 14 counted only
# the jobs the killed server had started and not finished, and failed a run
# whose kill fell between a job's end and its acknowledgement.
class TortureDoublesTest < Minitest::Test
  TIMING = {heartbeat_interval: 0.5, heartbeat_ttl: 2, reaper_interval: 0.5}.freeze

  # The first server holds each finished job's acknowledgement until it is
  # killed: the job returned, its finish is in the ledger, Redis was not told.
  APP = <<~RUBY
    require #{File.expand_path("../../torture/app.rb", __dir__).inspect}

    class HoldAcknowledgement
      def call(_job, _payload, _queue)
        yield
        sleep 60 if ENV["TORTURE_HOLD_ACK"]
      end
    end

    Deckhand.configure { |config| config.server_middleware.add(HoldAcknowledgement) }
  RUBY

  Event = Torture::Ledger::Event

  def setup
    super
    @dir = Dir.mktmpdir("torture-doubles")
    app = File.join(@dir, "app.rb")
    File.write(app, APP)
    url = Deckhand::RedisHarness.url
    @ledger = Torture::Ledger.new(url)
    @fleet = Torture::Fleet.new(dir: @dir, redis_url: url, ledger_url: url, settings: TIMING.merge(app: app))
    @client = Deckhand::Client.new(config: Deckhand::Config.new(redis: {url: url}))
  end

  def teardown
    @fleet.alive.each { |m| ::Process.kill("KILL", m.pid) && ::Process.waitpid(m.pid) }
    @ledger.close
    FileUtils.rm_rf(@dir)
    super
  end

  def test_a_job_finished_and_not_acknowledged_when_its_server_is_killed_runs_again_and_the_kill_explains_it
    holder = @fleet.spawn(concurrency: 1, env: {"TORTURE_HOLD_ACK" => "1"})
    jid = @client.push("class" => "Torture::WorkJob", "args" => [0])
    wait_for(message: "the job to finish on the first server") { @ledger.finishes.any? { |f| f.jid == jid && f.pid == holder.pid } }
    @fleet.kill(holder)
    rerun = @fleet.spawn(concurrency: 1)
    wait_for(timeout: 60, message: "the reaper to give the job back and the job to run again") { @ledger.finishes.any? { |f| f.jid == jid && f.pid == rerun.pid } }

    starts = @ledger.starts
    assert_equal [holder.pid, rerun.pid], starts.map(&:pid), "it started twice, first on the killed server"
    killed_at = @fleet.kills.to_h.fetch(holder.pid)
    assert @ledger.finishes.find { |f| f.pid == holder.pid }.at < killed_at, "its first run finished before the kill"
    assert_match(/process #{Regexp.escape(@fleet.identity(holder))} .*: recovered 1 of its jobs/, File.read(rerun.log))

    doubles = Torture::Doubles.new(starts, @fleet.kills)
    assert_equal 1, doubles.explained
    assert_equal 0, doubles.unexplained
    assert_equal({holder.pid => 1}, doubles.after_kill)
  end

  def test_a_second_start_no_kill_came_before_is_a_double
    kills = [[10, 100.0]]
    starts = [
      Event.new("a", 10, 99.0), Event.new("a", 11, 101.0), # rerun after its server's kill: explained
      Event.new("b", 11, 50.0), Event.new("b", 12, 60.0), # two live servers: a double
      Event.new("c", 10, 98.0), Event.new("c", 11, 99.5), # rerun before the kill: a double
      Event.new("d", 10, 100.002), Event.new("d", 12, 103.0), # stamped just after the kill: explained
      Event.new("e", 11, 70.0) # started once
    ]
    doubles = Torture::Doubles.new(starts, kills)
    assert_equal 2, doubles.explained
    assert_equal 2, doubles.unexplained
    assert_equal({10 => 2}, doubles.after_kill)
    assert_equal ["b: 11@0.00 12@10.00", "c: 10@0.00 (killed @2.00) 11@1.50"], doubles.examples
  end
end
