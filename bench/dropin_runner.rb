# frozen_string_literal: true

# Times a job runner alone (Server::Run::JobRunner#run) on the job of
# Sidekiq's load test in drop-in mode: bin/sidekiqload's payload as drop-in
# mode pushes it, its worker (three arguments, retry: 1, a count under a
# Mutex), the server middleware a booted server has, on one thread, with a
# stand-in for the fetcher (a success only marks its unit settled). No
# fetch, no round trip and no other thread: what is left is what the job
# path itself costs a job, without the noise of ten threads and the global
# lock (bench/dropin_profile.rb profiles the whole run). Prints the CPU time
# and objects allocated a job of each of ROUNDS rounds of COUNT jobs; with
# PROFILE=1, vernier's frames of the last round by self time. Needs a
# redis-server on PATH (the store connects; nothing a success does reaches
# it) and, for PROFILE=1, vernier (today's bundle, Ruby 3.3).
#
#   bundle exec ruby bench/dropin_runner.rb                    # COUNT=100000 ROUNDS=7
#   PROFILE=1 ROWS=40 bundle exec ruby bench/dropin_runner.rb
require "bundler/setup"
require "tmpdir"
require "socket"
require_relative "lib/sidekiq_dropin"
require "deckhand/server"

module DropInRunner
  PAYLOAD = '{"retry":1,"queue":"default","class":"LoadWorker","created_at":1795971781041,"enqueued_at":1795971781042,' \
    '"jid":"208945706cce73e0865fb2a3","args":["string",1,{"mike":"bob"}]}'

  # Settles as the fetcher would count a success, with no round trip.
  class StandInFetcher
    def done(unit, marked: false, unlock: nil) = unit.settled = true

    def gather = nil
  end

  module_function

  def main
    count, rounds = Integer(ENV.fetch("COUNT", "100000")), Integer(ENV.fetch("ROUNDS", "7"))
    with_redis do |port|
      runner = runner(port)
      profile = ENV["PROFILE"] == "1" && require("vernier")
      results = Array.new(rounds) { |i| round(runner, count, profile && i == rounds - 1) }
      cpu = results.map(&:first).sort
      puts RUBY_DESCRIPTION, format("JobRunner#run: CPU %s µs a job (median %.2f); %.1f objects a job",
        results.map { format("%.2f", _1[0]) }.join(" / "), cpu[cpu.size / 2], results.last[1])
    end
  end

  def runner(port)
    config = Sidekiq.configure_embed do |c|
      c.redis = {db: 13, port: port}
      c.logger.level = Logger::WARN
    end.config.config
    Deckhand::Periodic::TickOutcomes.install(config) # as a booted server has it
    suspects = Deckhand::Server::Recovery::Suspects.new("bench", store: config.store, logger: config.logger, max_recoveries: 3)
    Deckhand::Server::Run::JobRunner.new(config: config, store: config.store, identity: "bench", fetcher: StandInFetcher.new,
      stats: Deckhand::Server::Chores::Activity.new, suspects: suspects)
  end

  # One lot of `count` jobs, claimed before the clock starts, as the
  # processors take them; run under the processor's interrupt mask.
  def round(runner, count, profile)
    lot = Deckhand::Server::Fetch::Lot.new("queue:default", 0, 1, count).hold(Array.new(count) { PAYLOAD.dup.freeze })
    units = Array.new(count) { lot.claim }
    GC.start
    Vernier.start_profile(mode: :wall) if profile
    cpu, objects = cpu_now, GC.stat(:total_allocated_objects)
    Thread.handle_interrupt(Deckhand::Server::Run::JobRunner::MASKED) { units.each { |unit| runner.run(unit) } }
    result = [(cpu_now - cpu) * 1e6 / count, (GC.stat(:total_allocated_objects) - objects).fdiv(count)]
    report(Vernier.stop_profile, result[0]) if profile
    result
  end

  def report(profile, per_job)
    table, own = profile.stack_table, Hash.new(0)
    profile.threads.each_value do |thread|
      thread[:samples].each_with_index do |stack, i|
        own[table.func_name(table.frame_func_idx(table.stack_frame_idx(stack)))] += thread[:weights][i]
      end
    end
    all = own.values.sum.to_f
    own.sort_by { -_2 }.first(Integer(ENV.fetch("ROWS", "40"))).each do |name, n|
      puts format("%5.1f %%  %5.2f µs  %s", 100 * n / all, per_job * n / all, name)
    end
  end

  def with_redis
    Dir.mktmpdir("dropin-runner") do |dir|
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

  def cpu_now = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
end

# bin/sidekiqload's job.
class LoadWorker
  include Sidekiq::Job

  sidekiq_options retry: 1
  LOCK = Mutex.new
  DONE = [0]

  def perform(string, idx, hash, ts = nil) = LOCK.synchronize { DONE[0] += 1 }
end

DropInRunner.main
