# frozen_string_literal: true

module Deckhand
  module Operations
    # This process's own counters, kept in memory for its Prometheus endpoint:
    # jobs processed and failed and their execution time per class and queue
    # (successes and failures in histograms apart, the `outcome` label),
    # chunks run and the jobs they held (each also a job processed), jobs
    # recovered from dead processes, poison pills buried. Label sets are
    # bounded: past MAX_SERIES class/queue pairs, new ones count under
    # class="other", queue="other", so no stream of class names can grow a
    # scrape without end.
    #
    #   registry = Registry.new
    #   registry.job("HardJob", "default", 0.042, false)
    #   registry.chunk("SyncJob", "default", 1000)
    #   registry.event(:recovered, 3)
    #   out = Exposition.new
    #   registry.write(out)
    class Registry
      # Seconds; a job's execution time falls in the first bucket whose bound
      # is not below it.
      BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300].freeze
      MAX_SERIES = 500
      OTHER = ["other", "other"].freeze
      EVENTS = {
        recovered: ["deckhand_recoveries_total", "Jobs of dead processes this process's reaper put back in their queues"],
        poison_pill: ["deckhand_poison_pills_total", "Jobs buried in the dead set by this process for killing their processes too often"]
      }.freeze

      Series = Struct.new(:processed, :failed, :buckets, :sum, :failed_buckets, :failed_sum, :chunks, :chunk_jobs)

      def initialize
        @lock = Mutex.new
        @series = {} # [class, queue] => Series
        @index = {}  # class => {queue => Series}: no allocation per job
        @indexed = 0
        @events = EVENTS.keys.to_h { |name| [name, 0] }
      end

      def job(klass, queue, seconds, failed)
        index = BUCKETS.bsearch_index { |bound| bound >= seconds } || BUCKETS.size
        @lock.synchronize do
          series = @index[klass]&.[](queue) || add(klass.to_s, queue.to_s)
          series.processed += 1
          series.failed += 1 if failed
          if failed
            series.failed_buckets[index] += 1
            series.failed_sum += seconds
          else
            series.buckets[index] += 1
            series.sum += seconds
          end
        end
      end

      def chunk(klass, queue, jobs)
        @lock.synchronize do
          series = @index[klass]&.[](queue) || add(klass.to_s, queue.to_s)
          series.chunks += 1
          series.chunk_jobs += jobs
        end
      end

      def event(name, count = 1)
        @lock.synchronize { @events[name] += count if @events.key?(name) }
      end

      def write(out)
        series, events = @lock.synchronize do
          [@series.transform_values { |s| s.dup.tap { |copy| copy.buckets, copy.failed_buckets = s.buckets.dup, s.failed_buckets.dup } }, @events.dup]
        end
        rows = series.sort_by(&:first)
        out.family("deckhand_jobs_processed_total", :counter, "Jobs this process ran to an outcome (failures included)")
        rows.each { |(klass, queue), s| out.sample("deckhand_jobs_processed_total", labels(klass, queue), s.processed) }
        out.family("deckhand_jobs_failed_total", :counter, "Jobs this process ran that raised")
        rows.each { |(klass, queue), s| out.sample("deckhand_jobs_failed_total", labels(klass, queue), s.failed) }
        execution_seconds(out, rows)
        chunks(out, rows.select { |_, s| s.chunks.positive? })
        EVENTS.each do |name, (metric, help)|
          out.family(metric, :counter, help)
          out.sample(metric, {}, events[name])
        end
      end

      private

      # A fast failure must not hide how long the job takes when it works:
      # one histogram per outcome (a failure's only once one failed).
      def execution_seconds(out, rows)
        name = "deckhand_job_execution_seconds"
        out.family(name, :histogram, "Time spent in perform, middleware included, by outcome")
        rows.each do |(klass, queue), s|
          out.histogram(name, labels(klass, queue).merge("outcome" => "success"), BUCKETS, s.buckets, s.sum) if s.processed > s.failed
          out.histogram(name, labels(klass, queue).merge("outcome" => "failure"), BUCKETS, s.failed_buckets, s.failed_sum) if s.failed.positive?
        end
      end

      def chunks(out, rows)
        out.family("deckhand_chunks_total", :counter, "Chunks this process ran (calls of perform_chunk)")
        rows.each { |(klass, queue), s| out.sample("deckhand_chunks_total", labels(klass, queue), s.chunks) }
        out.family("deckhand_chunk_jobs_total", :counter, "Jobs the chunks held (each also in deckhand_jobs_processed_total)")
        rows.each { |(klass, queue), s| out.sample("deckhand_chunk_jobs_total", labels(klass, queue), s.chunk_jobs) }
      end

      def add(klass, queue)
        key = (@series.size >= MAX_SERIES) ? OTHER : [klass, queue]
        series = @series[key] ||= Series.new(0, 0, Array.new(BUCKETS.size + 1, 0), 0.0, Array.new(BUCKETS.size + 1, 0), 0.0, 0, 0)
        if @indexed < MAX_SERIES # past it, "other" jobs take this slower path: memory stays bounded
          (@index[klass] ||= {})[queue] = series
          @indexed += 1
        end
        series
      end

      def labels(klass, queue) = {"class" => klass, "queue" => queue}
    end
  end
end
