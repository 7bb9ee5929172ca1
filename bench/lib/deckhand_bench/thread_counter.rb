# frozen_string_literal: true

module DeckhandBench
  # How many threads the process has started, for "threads created per job":
  # a job path that starts a Thread or, on JRuby, a Fiber or an external
  # Enumerator#next (each a thread there) shows up as a count that grows
  # with the jobs. JRuby asks the JVM; MRI counts thread starts with a
  # TracePoint from #install on.
  #
  #   DeckhandBench::ThreadCounter.install
  #   before = DeckhandBench::ThreadCounter.started
  #   run_jobs
  #   DeckhandBench::ThreadCounter.started - before
  module ThreadCounter
    @started = 0
    @lock = Mutex.new

    class << self
      def install
        return self if RUBY_ENGINE == "jruby" || @trace
        @trace = TracePoint.new(:thread_begin) { @lock.synchronize { @started += 1 } }
        @trace.enable
        self
      end

      def started
        return Java::JavaLangManagement::ManagementFactory.getThreadMXBean.getTotalStartedThreadCount if RUBY_ENGINE == "jruby"
        @lock.synchronize { @started }
      end
    end
  end
end
