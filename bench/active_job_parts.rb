# frozen_string_literal: true

# Where an Active Job job's time goes on its way through Deckhand, in one
# process on one thread, without Redis: Active Job's own execute (the ceiling
# bench/active_job.rb measures), the same execute on data freshly parsed from
# JSON (what any Redis-backed server must at least do), Deckhand's decode of
# the whole payload, decode plus the adapter's wrapper, and the job runner's
# whole path (decode, gate, activity, wrapper, metrics; Redis left out).
# Objects allocated per job are exact; times are CPU time of this process
# (and the part of it in garbage collection), medians of the rounds, so other
# load on the machine disturbs them less than wall time.
#
#   bundle exec ruby --yjit bench/active_job_parts.rb [--jobs 10000] [--rounds 7]
#
# Without YJIT, under valgrind, the same parts give instruction counts that no
# load disturbs: run a part with --jobs 0 and with --jobs N --rounds 1, and
# divide the difference of the two "I refs" by N:
#
#   bundle exec valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
#     ruby bench/active_job_parts.rb --only decode+wrapper --jobs 3000 --rounds 1

require "optparse"
ENV["BENCH_SYSTEM"] = "deckhand"
require_relative "app/active_job_app"
require_relative "../lib/deckhand/server"

# As in the ceiling: no probe window here.
module DeckhandBench::Probe
  def self.tick = nil
end

module ActiveJobParts
  module_function

  def parts
    job = BenchAjNoopJob.new("bench", 1, {"id" => 1, "tag" => "bench"})
    data = job.serialize
    json = JSON.generate(data)
    wrapper = ActiveJob::QueueAdapters::DeckhandAdapter::JobWrapper
    item = Deckhand::Payload.normalize({"class" => wrapper, "wrapped" => job.class.name, "queue" => job.queue_name, "args" => [data]})
    payload = Deckhand::Payload.encode(item, max_bytes: 1 << 20)
    {
      "execute" => -> { ActiveJob::Base.execute(data.dup) },
      "execute(JSON)" => -> { ActiveJob::Base.execute(JSON.parse(json)) },
      "decode" => -> { Deckhand::Payload.decode(payload) },
      "decode+wrapper" => lambda do
        decoded = Deckhand::Payload.decode(payload)
        runner = wrapper.new
        runner.jid = decoded["jid"]
        runner.perform(*decoded["args"])
      end,
      "runner" => runner(payload),
      "plain runner" => runner(plain_payload)
    }
  end

  # A plain Deckhand job, for the runner's cost without Active Job.
  class BenchPlainNoopJob
    include Deckhand::Job

    def perform(_name, _number, _options) = nil
  end

  def plain_payload
    item = Deckhand::Payload.normalize({"class" => BenchPlainNoopJob, "queue" => "bench", "args" => ["bench", 1, {"id" => 1, "tag" => "bench"}]})
    Deckhand::Payload.encode(item, max_bytes: 1 << 20)
  end

  # A fetcher that settles nothing: Redis is left out, the rest of a server
  # thread's work on one job is in.
  class Settles
    def done(_unit, **) = nil
  end

  # The server's whole per-job path on a processor thread, as
  # Processor#run calls it: decode, gate, activity, the wrapper, metrics.
  def runner(payload)
    config = Deckhand.config
    store = Deckhand::Store.new({url: "redis://127.0.0.1:1/0"}) # never connected: a no-op job sends no command
    identity = "bench" # only a failure reads it
    suspects = Deckhand::Server::Recovery::Suspects.new(identity, store: store, logger: config.logger, max_recoveries: 3)
    runner = Deckhand::Server::Run::JobRunner.new(config: config, store: store, identity: identity, fetcher: Settles.new,
      stats: Deckhand::Server::Chores::Activity.new, suspects: suspects)
    lot = Struct.new(:queue, :queue_name).new("bench", "bench")
    -> { Thread.handle_interrupt(Deckhand::Server::Run::JobRunner::MASKED) { runner.run(Deckhand::Server::Fetch::UnitOfWork.new(lot, 0, payload.dup, false)) } }
  end

  def measure(part, jobs)
    allocated = GC.stat(:total_allocated_objects)
    gc_ms = GC.stat(:time)
    started = ::Process.clock_gettime(::Process::CLOCK_PROCESS_CPUTIME_ID)
    jobs.times { part.call }
    seconds = ::Process.clock_gettime(::Process::CLOCK_PROCESS_CPUTIME_ID) - started
    [seconds * 1e6 / jobs, (GC.stat(:total_allocated_objects) - allocated).fdiv(jobs), (GC.stat(:time) - gc_ms) * 1e3 / jobs]
  end

  def run(jobs:, rounds:, only:)
    selected = parts.select { |name, _| only.nil? || name == only }
    abort "no part #{only.inspect}: #{parts.keys.join(", ")}" if selected.empty?
    selected.each_value { |part| 2_000.times { part.call } } # warm: YJIT, caches
    return if jobs.zero?
    samples = Hash.new { |h, k| h[k] = [] }
    rounds.times { selected.each { |name, part| samples[name] << measure(part, jobs) } }
    puts "Ruby #{RUBY_VERSION}, YJIT #{(defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled?) ? "on" : "off"}, " \
      "load #{File.read("/proc/loadavg").split.first(3).join(" ")}, #{jobs} jobs x #{rounds} rounds, medians:"
    samples.each do |name, runs|
      us = runs.map(&:first).sort[runs.size / 2]
      gc = runs.map(&:last).sort[runs.size / 2]
      puts format("  %-16s %7.1f µs CPU a job  %6.1f objects a job  %5.1f µs of GC a job", name, us, runs.map { |r| r[1] }.min, gc)
    end
  end
end

if $PROGRAM_NAME == __FILE__
  options = {jobs: 10_000, rounds: 7, only: nil}
  OptionParser.new do |o|
    o.on("--jobs N", Integer) { |n| options[:jobs] = n }
    o.on("--rounds N", Integer) { |n| options[:rounds] = n }
    o.on("--only PART") { |part| options[:only] = part }
  end.parse!
  ActiveJobParts.run(**options)
end
