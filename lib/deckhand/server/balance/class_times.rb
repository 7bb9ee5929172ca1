# frozen_string_literal: true

module Deckhand
  module Server
    module Balance
      # What each job class cost since the balancer last looked, per queue:
      # runs, wall time and the CPU time of the thread that ran them. The job
      # runner records each job it runs when auto-balance is on (the same
      # wall time the execution metrics count, plus the thread's CPU clock);
      # the balancer takes the sums once a second.
      #
      #   times = ClassTimes.new
      #   times.record("cpu", "SieveJob", 4.1, 3.9)   # queue, class, wall ms, CPU ms
      #   times.take   # => {["cpu", "SieveJob"] => [1, 4.1, 3.9]}, and starts over
      class ClassTimes
        if RUBY_ENGINE == "jruby"
          require "java"

          # JRuby's Process has no thread CPU clock: the JVM keeps one per
          # thread (-1 where the JVM was told not to).
          JVM_THREADS = java.lang.management.ManagementFactory.thread_mx_bean

          # The calling thread's CPU time in ms, or nil where it cannot be read.
          def self.cpu_ms
            nanoseconds = JVM_THREADS.current_thread_cpu_time
            nanoseconds.negative? ? nil : nanoseconds / 1_000_000.0
          end
        else
          # The CPU clock of the calling thread, where the platform has one.
          CLOCK = defined?(::Process::CLOCK_THREAD_CPUTIME_ID) ? ::Process::CLOCK_THREAD_CPUTIME_ID : nil

          # The calling thread's CPU time in ms, or nil where it cannot be read.
          def self.cpu_ms
            CLOCK && ::Process.clock_gettime(CLOCK, :float_millisecond)
          rescue Errno::EINVAL, NotImplementedError # a platform without a thread CPU clock
            nil
          end
        end

        def initialize
          @lock = Mutex.new
          @sums = {}
        end

        def record(queue, klass, wall_ms, cpu_ms)
          @lock.synchronize do
            sums = (@sums[[queue, klass]] ||= [0, 0.0, 0.0])
            sums[0] += 1
            sums[1] += wall_ms
            sums[2] += cpu_ms
          end
        end

        # {[queue, class] => [runs, wall ms, CPU ms]} since the last take.
        def take
          @lock.synchronize do
            taken = @sums
            @sums = {}
            taken
          end
        end
      end
    end
  end
end
