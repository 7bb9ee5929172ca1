# frozen_string_literal: true

module Deckhand
  # The suite's progress by folder, beside minitest's dots: a line each
  # minute a run lasts ("bin/test: 6 min, 812 of 1,877 tests; unit 400/520,
  # e2e 30/150, ...; no failures"), and, when the run spans folders, a
  # table at its end with each folder's tests, failures and time. A whole
  # suite is long, and dots alone do not say how far it has come or where
  # a failure sits.
  #
  # Minitest.extensions holds it (test_helper.rb), so every run has it:
  #
  #   bin/test                     # a line a minute, the table at the end
  #   bin/test test/unit/x_test.rb # the same, if it lasts a minute
  class FolderProgress < Minitest::AbstractReporter
    INTERVAL = 60
    ROOT = File.expand_path("..", __dir__)

    # Minitest's hook for an extension: adds the reporter to the run.
    def self.minitest_plugin_init(options)
      Minitest.reporter << new(options[:io], options)
    end

    def initialize(io, options, interval: INTERVAL)
      super()
      @io = io
      @options = options
      @interval = interval
      @done = Hash.new { |h, k| h[k] = {tests: 0, failures: 0, time: 0.0} }
      @folders = {}
    end

    def start
      @totals = planned
      @started = @last = now
    end

    def record(result)
      row = @done[folder(result.klass)]
      row[:tests] += 1
      row[:time] += result.time
      row[:failures] += 1 unless result.passed? || result.skipped?
      return if now - @last < @interval
      @last = now
      @io.puts "\nbin/test: #{((now - @started) / 60).round} min, #{progress}"
    end

    def report
      return if @done.size < 2
      @io.puts "\nBy folder:  tests  failures  time (s)"
      @done.sort.each do |name, row|
        @io.puts format("  %-12s %5d %9d %9.1f", name, row[:tests], row[:failures], row[:time])
      end
    end

    private

    def progress
      ran = @done.sum { |_, row| row[:tests] }
      failures = @done.sum { |_, row| row[:failures] }
      folders = @totals.sort.map { |name, total| "#{name} #{@done.fetch(name, {tests: 0})[:tests]}/#{total}" }
      "#{ran} of #{@totals.values.sum} tests; #{folders.join(", ")}; " +
        (failures.zero? ? "no failures" : "#{failures} failed so far")
    end

    # The tests the run will take, by folder, with minitest's own -n and -e
    # filters applied.
    def planned
      Minitest::Runnable.runnables.each_with_object(Hash.new(0)) do |runnable, totals|
        runnable.runnable_methods.each do |name|
          next unless chosen?(runnable, name)
          totals[folder(runnable.name)] += 1
        end
      end
    end

    def chosen?(runnable, name)
      full = "#{runnable}##{name}"
      filter, exclude = pattern(@options[:filter]), pattern(@options[:exclude])
      (filter.nil? || filter === name || filter === full) && !(exclude && (exclude === name || exclude === full))
    end

    # A "/regexp/" option as minitest reads it; any other string as is.
    def pattern(option)
      return option unless option.is_a?(String)
      (m = option.match(%r{\A/(.*)/\z})) ? Regexp.new(m[1]) : option
    end

    # A test class's folder under test/, where the class is defined (its
    # tests may come from a shared module in test/support):
    # test/unit/store/x_test.rb -> "unit".
    def folder(class_name)
      @folders[class_name] ||= begin
        path = class_name && Object.const_source_location(class_name)&.first
        relative = path&.delete_prefix("#{ROOT}/")
        (path.nil? || relative == path) ? "other" : relative.split("/").first
      end
    end

    def now = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)
  end
end
