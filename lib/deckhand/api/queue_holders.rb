# frozen_string_literal: true

require_relative "../store/jobs/queue_heads"
require_relative "queue_holder"

module Deckhand
  class API
    # The job classes holding a queue: those whose jobs run now (from the
    # processes' work records, as Busy reads them) and those waiting at its
    # head. The waiting side is a sample: the next `sample` jobs to run (of
    # each partition of a partitioned queue), never a whole long queue
    # (#sample? says when the queue holds more). A fair queue's jobs still
    # waiting for their tenant's share are not in it.
    #
    #   holders = api.queue("reports").holders          # the next 1,000 jobs
    #   holders.list.map { |h| [h.name, h.running, h.running_for, h.waiting] }   # => [["ReportJob", 10, 412.3, 14]]
    #   holders.running_total   # => 10 jobs of the queue running now
    #   holders.sampled         # => 14 jobs read from the queue's head
    #   holders.sample?         # => false: all its waiting jobs were read
    #   api.queue_holders(api.queues, sample: 100)      # => {"reports" => QueueHolders, ...}, in one round trip
    class QueueHolders
      SAMPLE = 1_000 # jobs read from a queue's head for its page
      LIST_SAMPLE = 100 # per queue, for the list of queues

      attr_reader :name, :list, :running_total, :sampled, :sample_size

      # queues: API::Queue objects; running: API::RunningJob list (api.running).
      # Returns {queue name => QueueHolders}.
      def self.read(config, queues, running:, sample: SAMPLE, now: Time.at(config.store.clock.now))
        lists = queues.to_h { |queue| [queue.name, queue.size.positive? ? list_names(queue) : []] }
        heads = Store::Jobs::QueueHeads.read(config.store, lists.values.flatten, sample)
        by_queue = running.group_by { |job| Store::Layout::PartitionNames.base(job.queue) }
        queues.to_h do |queue|
          raws = heads.shift(lists[queue.name].size).flatten.first(sample)
          [queue.name, new(queue.name, raws, by_queue.fetch(queue.name, []), size: queue.size, sample_size: sample, now: now)]
        end
      end

      def self.list_names(queue) = queue.partitioned? ? queue.partitions.map(&:name) : [queue.name] # :nodoc:

      def initialize(name, raws, running, size:, sample_size:, now:)
        @name = name
        @sample_size = sample_size
        @running_total = running.size
        @sampled = raws.size
        @sample = size > raws.size
        @list = holders(raws.map { |raw| JobRecord.new(raw) }, running, now)
      end

      # True when the queue holds more jobs than were read: the waiting
      # counts are of its head only.
      def sample? = @sample

      # True when no job of the queue was running or read.
      #
      #   api.queue("reports").holders.empty?
      #
      # @return [Boolean]
      def empty? = @list.empty?

      # The classes with jobs running now, most first.
      def running = @list.select { |h| h.running.positive? }

      # The classes waiting in the sample, most first.
      def waiting = @list.select { |h| h.waiting.positive? }.sort_by { |h| [-h.waiting, h.name] }

      private

      def holders(jobs, running, now)
        runs = running.group_by { |job| job.job.display_class }
        waits = jobs.group_by { |job| job.corrupt? ? "(not a job)" : job.display_class }
        (runs.keys | waits.keys).map do |klass|
          ran = runs.fetch(klass, [])
          waited = waits.fetch(klass, [])
          started = ran.filter_map(&:run_at).min
          oldest = waited.filter_map(&:enqueued_at).min
          QueueHolder.new(name: klass, running: ran.size, running_share: share(ran.size, @running_total),
            running_for: started && [now - started, 0.0].max, waiting: waited.size,
            waiting_share: share(waited.size, jobs.size), waiting_for: oldest && [now - oldest, 0.0].max)
        end.sort_by { |h| [-h.running, -h.waiting, h.name] }
      end

      def share(count, total) = total.zero? ? 0.0 : count.fdiv(total)
    end
  end
end
