# frozen_string_literal: true

# Profiles drop-in mode through the run of Sidekiq's load test: the job of
# bin/sidekiqload (three arguments, retry: 1) pushed COUNT x 500 times with
# push_bulk, then an embedded server of THREADS threads (Sidekiq.configure_embed)
# run until every job ran, with vernier (wall mode, every thread) around the
# run alone. Prints each thread's share of samples running, idle (waiting for
# work or asleep) and stalled (waiting for Ruby's global lock), then the
# frames where threads run, by self and by total time. Needs the vernier gem
# (in today's bundle, Ruby 3.3) and a redis-server on PATH; it starts its own.
#
#   ruby bench/dropin_profile.rb                # COUNT=200 (100,000 jobs), THREADS=10
#   COUNT=400 ROWS=60 ruby bench/dropin_profile.rb
#
# Without vernier (PROFILE=0) it only times the run: jobs/s, CPU time and
# objects allocated a job, garbage collections.
require "bundler/setup"
require "tmpdir"
require "socket"
require_relative "lib/sidekiq_dropin"

module DropInProfile
  module_function

  def main
    count, threads = Integer(ENV.fetch("COUNT", "200")), Integer(ENV.fetch("THREADS", "10"))
    with_redis do |port|
      embedded = configure(port, threads)
      Sidekiq.redis(&:flushdb)
      jobs = push(count)
      profile = ENV["PROFILE"] != "0" && require("vernier")
      Vernier.start_profile(mode: :wall) if profile
      took = measure(embedded, jobs)
      result = Vernier.stop_profile if profile
      embedded.stop
      puts RUBY_DESCRIPTION, took
      report(result, Integer(ENV.fetch("ROWS", "40"))) if result
    end
  end

  def configure(port, threads)
    Sidekiq.configure_embed do |config|
      config.redis = {db: 13, port: port}
      config.concurrency = threads
      config.queues = %w[default]
      config.logger.level = Logger::WARN
    end
  end

  def push(count)
    500.times { Sidekiq::Client.push_bulk("class" => LoadWorker, "args" => Array.new(count) { |i| ["string", i, {"mike" => "bob"}] }) }
    GC.start
    count * 500
  end

  def measure(embedded, jobs)
    started, cpu, objects, collections = now, cpu_now, GC.stat(:total_allocated_objects), GC.count
    embedded.run
    sleep 0.01 until LoadWorker.done >= jobs
    seconds = now - started
    format("%d jobs in %.2f s, %d jobs/s; CPU %.1f µs and %.1f objects a job; %d garbage collections", jobs, seconds,
      jobs / seconds, (cpu_now - cpu) * 1e6 / jobs, (GC.stat(:total_allocated_objects) - objects).fdiv(jobs), GC.count - collections)
  end

  # Vernier's sample categories: 0 running, 1 idle, 2 stalled.
  def report(result, rows)
    table = result.stack_table
    own, total, running = Hash.new(0), Hash.new(0), 0
    result.threads.each_value do |thread|
      states = Hash.new(0)
      thread[:samples].each_with_index do |stack, i|
        weight, category = thread[:weights][i], thread[:sample_categories][i]
        states[category] += weight
        next unless category.zero?
        running += weight
        names = table.full_stack(stack).map { |s| table.func_name(table.frame_func_idx(table.stack_frame_idx(s))) }
        own[names.first] += weight
        names.uniq.each { |name| total[name] += weight }
      end
      all = states.values.sum.to_f
      puts format("%-24s running %4.1f %%, idle %4.1f %%, stalled %4.1f %%", thread[:name], *[0, 1, 2].map { 100 * states[_1] / all })
    end
    {"self" => own, "total" => total}.each do |title, counts|
      puts "-- where threads run, by #{title} (share of the samples where a thread runs)"
      counts.sort_by { -_2 }.first(rows).each { |name, n| puts format("%5.1f %%  %s", 100.0 * n / running, name) }
    end
  end

  def with_redis
    Dir.mktmpdir("dropin-profile") do |dir|
      port = TCPServer.open("127.0.0.1", 0) { _1.addr[1] }
      pid = spawn("redis-server", "--port", port.to_s, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, out: File::NULL)
      sleep 0.05 until system("redis-cli", "-p", port.to_s, "ping", out: File::NULL, err: File::NULL)
      yield port
    ensure
      if pid
        Process.kill("TERM", pid)
        Process.wait(pid)
      end
    end
  end

  def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

  def cpu_now = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
end

# bin/sidekiqload's job, counting under a lock as it does.
class LoadWorker
  include Sidekiq::Job

  sidekiq_options retry: 1
  LOCK = Mutex.new
  DONE = [0]

  def self.done = LOCK.synchronize { DONE[0] }

  def perform(string, idx, hash, ts = nil) = LOCK.synchronize { DONE[0] += 1 }
end

DropInProfile.main
