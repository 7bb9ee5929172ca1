# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

# auto_balance: true (docs/auto-balance.md), against a real Redis: a queue of
# CPU-bound jobs is held to the cores the process can use while I/O-bound
# jobs take the other threads; fetches follow the backlog; and the balance
# never loses or repeats a job, held jobs included.
class AutoBalanceTest < Minitest::Test
  # How many jobs of each kind run at once, and the most seen since a reset.
  module Gauge
    @lock = Mutex.new

    class << self
      def reset
        @lock.synchronize do
          @running = Hash.new(0)
          @max = Hash.new(0)
          @done = Hash.new(0)
        end
      end

      def around(kind)
        @lock.synchronize do
          @running[kind] += 1
          @max[kind] = @running[kind] if @running[kind] > @max[kind]
        end
        yield
      ensure
        @lock.synchronize do
          @running[kind] -= 1
          @done[kind] += 1
        end
      end

      def running(kind) = @lock.synchronize { @running[kind] }

      def done(kind) = @lock.synchronize { @done[kind] }

      def max(kind) = @lock.synchronize { @max[kind] }

      def reset_max = @lock.synchronize { @max = @running.dup.tap { |h| h.default = 0 } }
    end
  end

  # Spins for `ms` of this thread's own CPU time, however contended.
  class SpinJob
    include Deckhand::Job

    def perform(ms)
      Gauge.around(:cpu) do
        start = Deckhand::Server::Balance::ClassTimes.cpu_ms
        x = 0
        x += 1 while Deckhand::Server::Balance::ClassTimes.cpu_ms - start < ms
        Deckhand::TestJobs.record([jid, "cpu"])
      end
    end
  end

  class WaitJob
    include Deckhand::Job

    def perform(ms, tag = "io")
      Gauge.around(:io) do
        sleep(ms / 1000.0)
        Deckhand::TestJobs.record([jid, tag])
      end
    end
  end

  def setup
    super
    Gauge.reset
  end

  def test_a_cpu_bound_queue_is_capped_while_io_jobs_take_the_other_threads
    cores = Deckhand::Server::Balance::Cores.usable
    config = new_config(queues: %w[cpu io], concurrency: cores + 5, auto_balance: true, heartbeat_interval: 0.2)
    Deckhand::Client.push_bulk("class" => SpinJob.name, "queue" => "cpu", "args" => Array.new(4000) { [2] })
    Deckhand::Client.push_bulk("class" => WaitJob.name, "queue" => "io", "args" => Array.new(3000) { [20] })
    with_server(config) do |launcher|
      # The cap may come before the balancer has timed a WaitJob: wait for both.
      balance = wait_for(timeout: 60, message: "the cpu queue capped, both classes timed") do
        b = balance_of(launcher)
        b if b["caps"] == {"cpu" => cores} && b.dig("ratios", WaitJob.name)
      end
      assert_includes balance["cpu_bound"], SpinJob.name
      refute_includes balance["cpu_bound"], WaitJob.name
      assert_operator balance["ratios"][SpinJob.name], :>, balance["ratios"][WaitJob.name]
      wait_for(message: "the CPU jobs down to the cap") { Gauge.running(:cpu) <= cores }
      Gauge.reset_max
      io_before = Gauge.done(:io)
      cpu_before = Gauge.done(:cpu)
      wait_for(message: "I/O jobs run beside the capped queue") { Gauge.done(:io) >= io_before + 100 && Gauge.done(:cpu) >= cpu_before + 20 }
      assert_operator Gauge.max(:cpu), :<=, cores, "CPU-bound jobs never run past the cap"
      assert_operator Gauge.max(:io), :>=, 4, "the threads the cap frees run I/O jobs"
      assert_operator redis.call("LLEN", "queue:cpu"), :>, 0, "all the while the CPU-bound queue had jobs waiting"
    end
  end

  def test_fetches_follow_the_backlog_not_the_strict_order
    config = new_config(queues: %w[first second], concurrency: 4, auto_balance: true, heartbeat_interval: 0.2)
    %w[first second].each do |queue|
      Deckhand::Client.push_bulk("class" => WaitJob.name, "queue" => queue, "args" => Array.new(3000) { [10, queue] })
    end
    with_server(config) do |launcher|
      wait_for(message: "the balancer's first look") { balance_of(launcher).dig("backlog", "second") }
      before = counts
      wait_for(message: "200 more jobs") { counts.values.sum >= before.values.sum + 200 }
      after = counts
      second = after["second"] - before["second"]
      first = after["first"] - before["first"]
      assert_operator second, :>=, (first + second) / 4, "the second queue gets its share of threads (strict order would give it none)"
    end
  end

  def test_no_job_is_lost_or_run_twice_when_a_balanced_process_stops_holding_capped_jobs
    config = new_config(queues: %w[cpu io], concurrency: 4, auto_balance: true, timeout: 20)
    jids = Deckhand::Client.push_bulk("class" => SpinJob.name, "queue" => "cpu", "args" => Array.new(5000) { [1] }) +
      Deckhand::Client.push_bulk("class" => WaitJob.name, "queue" => "io", "args" => Array.new(800) { [5] })
    with_server(config) do |launcher|
      wait_for(timeout: 60, message: "the cpu queue capped") { balance_of(launcher)["caps"]&.key?("cpu") }
      wait_for(timeout: 60, message: "capped jobs held in the process") { held(launcher).positive? }
    end
    left = jobs_in("cpu").size + jobs_in("io").size
    assert_operator left, :>, 0, "the stop handed unfinished jobs back"
    with_server(new_config(queues: %w[cpu io], concurrency: 4, auto_balance: true)) do
      wait_for(timeout: 120, message: "every job run") { Deckhand::TestJobs.runs.size >= jids.size }
    end
    ran = Deckhand::TestJobs.runs.map(&:first)
    assert_equal jids.sort, ran.sort, "each job ran exactly once"
  end

  private

  # The balance as the process's heartbeat published it.
  def balance_of(launcher)
    Deckhand::API.new(Deckhand.config).processes.find(launcher.identity)&.balance || {}
  end

  def counts = Deckhand::TestJobs.runs.each_with_object(Hash.new(0)) { |(_, tag), h| h[tag] += 1 }

  # Jobs of capped queues fetched and waiting for their turn.
  def held(launcher)
    launcher.capsules.sum do |capsule|
      capsule.fetcher.balance.state.sum { |_, (cap, running, outstanding)| cap ? outstanding - running : 0 }
    end
  end
end
