# frozen_string_literal: true

module Deckhand
  module Server
    module Balance
      # Learns which job classes are CPU-bound from what their runs cost
      # (ClassTimes): a class whose threads spend about as much CPU time as
      # wall time is CPU-bound; one that mostly waits (on Redis, HTTP, a
      # database, sleep) is not. Evidence fades with a half-life of a few
      # seconds, so a class that changes is judged again.
      #
      # Under Ruby's global lock (and on a busy machine) a CPU-bound job also
      # waits, for the lock or a core, and its CPU time falls well below its
      # wall time when many threads run: so classes are compared with the
      # class that used the most CPU for its time, which waited as much. A
      # class found CPU-bound that way must prove it once capped: running few
      # at a time, its CPU time must stay a fair part of its wall time
      # (CONFIRM); otherwise it is refuted, and from then on only its own CPU
      # time against its wall time brings it back (BOUND).
      #
      #   classifier = Classifier.new(cores: 1)
      #   changes = classifier.observe(times.take, 1.0)  # => [["SieveJob", true, 0.93]]
      #   classifier.cpu_bound?("SieveJob")               # => true
      #   classifier.queue_shares                          # => {"cpu" => 1.0, "io" => 0.0}
      class Classifier
        HALF_LIFE = 5.0 # seconds
        MIN_RUNS = 5
        # Jobs shorter than this (CPU ms per run) cost more to fetch than to
        # run: holding them to a few threads frees nothing for other work.
        MIN_CPU_MS = 0.2
        BOUND = 0.5 # CPU over wall time, relative to the top class's, to call a class CPU-bound
        CONFIRM = 0.15 # below it, a capped class was no CPU-bound class after all

        # Decayed sums of one class: runs, wall ms, CPU ms, and wall ms per queue.
        Evidence = Struct.new(:runs, :wall, :cpu, :queues) do
          def scale(factor)
            self.runs *= factor
            self.wall *= factor
            self.cpu *= factor
            queues.transform_values! { |ms| ms * factor }
          end

          def ratio = wall.positive? ? cpu / wall : 0.0
        end
        private_constant :Evidence

        def initialize(cores:)
          @cores = cores
          @classes = {}
          @elapsed = 0.0
          @cpu_bound = {}
          @refuted = {}
          @ratios = {}
        end

        # Adds what ClassTimes#take gave over the last `seconds`; returns the
        # classes whose verdict changed: [class, cpu_bound, CPU over wall time].
        def observe(taken, seconds)
          fade(0.5**(seconds / HALF_LIFE))
          @elapsed += seconds
          taken.each do |(queue, klass), (runs, wall, cpu)|
            evidence = (@classes[klass] ||= Evidence.new(0.0, 0.0, 0.0, Hash.new(0.0)))
            evidence.runs += runs
            evidence.wall += wall
            evidence.cpu += cpu
            evidence.queues[queue] += wall
          end
          judge
        end

        def cpu_bound?(klass) = @cpu_bound.key?(klass)

        # CPU time over wall time of each class, as last measured on enough runs.
        def ratios = @ratios.dup

        # The classes found CPU-bound.
        def cpu_bound = @cpu_bound.keys

        # Share of the cores the jobs kept busy.
        def busy = @elapsed.positive? ? known.sum { |_, e| e.cpu } / (@elapsed * 1000.0) / @cores : 0.0

        # For each queue, the share of its jobs' wall time spent in CPU-bound classes.
        def queue_shares
          totals = Hash.new(0.0)
          bound = Hash.new(0.0)
          @classes.each do |klass, evidence|
            evidence.queues.each do |queue, ms|
              totals[queue] += ms
              bound[queue] += ms if cpu_bound?(klass)
            end
          end
          totals.to_h { |queue, ms| [queue, ms.positive? ? bound[queue] / ms : 0.0] }
        end

        private

        def fade(factor)
          @elapsed *= factor
          @classes.each_value { |evidence| evidence.scale(factor) }
          @classes.delete_if { |klass, evidence| evidence.runs < 0.01 && !cpu_bound?(klass) }
          @ratios.select! { |klass, _| @classes.key?(klass) }
        end

        def known = @classes.select { |_, e| e.runs >= MIN_RUNS && e.wall.positive? }

        def judge
          classes = known
          classes.each { |klass, evidence| @ratios[klass] = evidence.ratio.round(3) }
          # The top class among those that could be capped: a no-op job's
          # CPU time is most of its (tiny) wall time, and says nothing.
          top = classes.values.select { |e| heavy?(e) }.map(&:ratio).max || 0.0
          reference = (classes.size > 1) ? [top, 0.001].max : 1.0
          classes.filter_map do |klass, evidence|
            verdict = verdict(klass, evidence, reference)
            next if verdict == cpu_bound?(klass)
            verdict ? capped(klass, evidence) : @cpu_bound.delete(klass)
            [klass, verdict, evidence.ratio.round(3)]
          end
        end

        # What the class cost before its cap says nothing of how it runs
        # capped: it proves itself on fresh runs (its queues' shares stay).
        def capped(klass, evidence)
          @cpu_bound[klass] = true
          @classes[klass] = Evidence.new(0.0, 0.0, 0.0, evidence.queues)
        end

        def heavy?(evidence) = evidence.cpu / evidence.runs >= MIN_CPU_MS

        def verdict(klass, evidence, reference)
          return false unless heavy?(evidence)
          ratio = evidence.ratio
          if cpu_bound?(klass)
            return true if ratio >= CONFIRM
            @refuted[klass] = true
            return false
          end
          reference = 1.0 if @refuted[klass]
          reference.positive? && ratio / reference >= BOUND
        end
      end
    end
  end
end
