# frozen_string_literal: true

# Where an Active Job job's time goes on its way through Deckhand, in one
# process on one thread, without Redis: Active Job's own execute (the ceiling
# bench/active_job.rb measures), the same execute on data freshly parsed from
# JSON (what any Redis-backed server must at least do), Deckhand's decode of
# the whole payload, and decode plus the adapter's wrapper. Objects allocated
# per job are exact; times are CPU time (this process), medians of the rounds,
# so other load on the machine disturbs them less than wall time.
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
      end
    }
  end

  def measure(part, jobs)
    allocated = GC.stat(:total_allocated_objects)
    started = ::Process.clock_gettime(::Process::CLOCK_PROCESS_CPUTIME_ID)
    jobs.times { part.call }
    seconds = ::Process.clock_gettime(::Process::CLOCK_PROCESS_CPUTIME_ID) - started
    [seconds * 1e6 / jobs, (GC.stat(:total_allocated_objects) - allocated).fdiv(jobs)]
  end

  def run(jobs:, rounds:, only:)
    selected = parts.select { |name, _| only.nil? || name == only }
    selected.each_value { |part| 2_000.times { part.call } } # warm: YJIT, caches
    return if jobs.zero?
    samples = Hash.new { |h, k| h[k] = [] }
    rounds.times { selected.each { |name, part| samples[name] << measure(part, jobs) } }
    puts "Ruby #{RUBY_VERSION}, YJIT #{(defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled?) ? "on" : "off"}, " \
      "load #{File.read("/proc/loadavg").split.first(3).join(" ")}, #{jobs} jobs x #{rounds} rounds, medians:"
    samples.each do |name, runs|
      us = runs.map(&:first).sort[runs.size / 2]
      puts format("  %-16s %7.1f µs CPU a job  %6.1f objects a job", name, us, runs.map(&:last).min)
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
