# frozen_string_literal: true

require_relative "queued_job"
require_relative "queue_tenant"
require_relative "../store/jobs/held_classes"

module Deckhand
  class API
    # One queue: its size, latency and jobs, and the actions on it. A
    # partitioned queue (Config::Partitions) is one queue here: its size adds
    # up its partitions', its latency is the oldest head's, its jobs are
    # listed partition by partition, and #partitions shows each list.
    #
    #   queue = api.queue("mailers")
    #   queue.size       # => 1_000_000
    #   queue.latency    # => 12.5 (seconds the next job has waited)
    #   queue.jobs(page: 2, per_page: 25)   # => [QueuedJob, ...] in the order they will run
    #   queue.partitions # => [] or, partitioned, [Queue "mailers", Queue "mailers~p1", ...]
    #   queue.holders    # => QueueHolders: the classes running and waiting at its head (a sample)
    #   queue.pause      # server processes skip it until #resume (every partition)
    #   queue.clear
    class Queue
      attr_reader :name

      # Every queue Redis knows, by name.
      #
      # @return [Array<Queue>]
      def self.all(config)
        store = config.store
        names = Store::Jobs::Queues.names(store)
        lists = names.group_by { |name| Store::Layout::PartitionNames.base(name) }
          .to_h { |base, found| [base, config.partitions.names(base) | found.sort_by { |name| name.delete_prefix(base).size }] }
        rows = Store::Jobs::Queues.summaries(store, lists.values.flatten).to_h { |row| [row[0], row] }
        lists.keys.sort.map do |base|
          parts = lists[base].map { |list| rows.fetch(list) }
          listed = parts.map { |list, size, oldest| new(list, config, size: size, oldest: oldest, paused: false, lists: []) }
          new(base, config, size: parts.sum { |row| row[1] }, paused: rows.fetch(base, parts[0])[3], lists: listed)
        end
      end

      def initialize(name, config, size: nil, oldest: :unknown, paused: nil, lists: nil)
        @name = name.to_s
        @config = config
        @store = config.store
        @size = size
        @oldest = oldest
        @paused = paused
        @lists = (lists&.size == 1) ? [] : lists # []: one list
      end

      # Jobs waiting in the queue (every partition of a partitioned one).
      def size = @size ||= partitioned? ? partitions.sum(&:size) : Store::Jobs::Queues.size(@store, @name)

      # Seconds the next job to run has been waiting (0 when empty); of a
      # partitioned queue, the longest any partition's next job has waited.
      def latency(now = Time.at(@store.clock.now))
        return partitions.map { |list| list.latency(now) }.max if partitioned?
        raw = oldest or return 0.0
        JobRecord.new(raw).latency(now)
      end

      # Whether the queue is paused (#pause).
      def paused? = @paused.nil? ? (@paused = Store::Jobs::Queues.paused?(@store, @name)) : @paused

      # Each list of a partitioned queue, partition 0 (the queue's own)
      # first, as a Queue of its own; [] for a queue that is not partitioned.
      def partitions
        @lists ||= begin
          names = @config.partitions.names(@name)
          names = [] if names.size == 1
          Store::Jobs::Queues.summaries(@store, names).map { |list, size, oldest| Queue.new(list, @config, size: size, oldest: oldest, paused: false, lists: []) }
        end
      end

      # Whether the queue is spread over several lists (Config#partitions).
      def partitioned? = !partitions.empty?

      # One page (1-based) of jobs in the order they will run: the jobs
      # waiting at priority levels below 0 first, lowest first, then the
      # queue's own, then those at levels above 0 (QueuedJob#level names
      # each one's; docs/priority.md); a partitioned queue's lists partition
      # after partition within each level (QueuedJob#list names each one's).
      def jobs(page: 1, per_page: 25)
        offset = (page - 1) * per_page
        order = Store::Jobs::PriorityLevels.run_order(@store, lists)
        return across(order, offset, per_page) if order.size > 1
        Store::Jobs::Queues.page(@store, @name, offset, per_page).each_with_index.map do |raw, i|
          QueuedJob.new(raw, offset + i, @name)
        end
      end

      # Deletes the job with this jid; `position` and `level` (from
      # QueuedJob#position and #level) say where to look. Returns true when
      # it was found and deleted.
      def delete_job(jid, position: 0, level: nil)
        lists.any? { |list| Store::Jobs::Queues.delete(@store, list, jid, position: position, level: level) }
      end

      # Deletes the entry with this QueuedJob#digest, looking around `position`
      # in the list of `level`: for entries that are not jobs. Returns true
      # when it was deleted.
      #
      #   queue.delete_entry(job.digest, position: job.position, level: job.level)
      def delete_entry(digest, position: 0, level: nil)
        lists.any? { |list| Store::Jobs::Queues.delete_entry(@store, list, digest, position: position, level: level) }
      end

      # The jobs of each paused job class held aside in this queue (every
      # partition): {"ReportJob" => 3}, the classes holding none left out.
      #
      #   api.queue("reports").held   # => {"ReportJob" => 3}
      #
      # @return [Hash{String => Integer}]
      def held
        Store::Jobs::HeldClasses.paused(@store).to_h { |name| [name, Store::Jobs::HeldClasses.held(@store, name, lists).values.sum] }
          .select { |_, count| count.positive? }
      end

      # Deletes every job waiting in the queue (not the running ones).
      def clear = lists.reverse_each { |list| Store::Jobs::Queues.clear(@store, list) } && nil

      # A fair queue's tenants with the most jobs waiting (API::QueueTenant),
      # deepest first; none for a queue without tenants.
      def tenants(count = 10) = QueueTenant.top(@store, @name, count)

      # The job classes holding the queue (API::QueueHolders): those running
      # now (`running`: api.running, read once for many queues) and those of
      # the next `sample` jobs waiting.
      #
      #   api.queue("reports").holders.running.first
      #
      # @return [QueueHolders]
      def holders(sample: QueueHolders::SAMPLE, running: ProcessSet.new(@config).running)
        QueueHolders.read(@config, [self], running: running, sample: sample).fetch(@name)
      end

      # Pauses the queue across the fleet: its jobs wait until #resume.
      def pause
        Store::Jobs::Queues.pause(@store, @name)
        @paused = true
      end

      # Lets a paused queue's jobs run again.
      def resume
        Store::Jobs::Queues.resume(@store, @name)
        @paused = false
      end

      private

      def lists = partitioned? ? partitions.map(&:name) : [@name]

      # A page read across `order` ([list, level] in run order): each list
      # skipped whole while the offset passes it, then read from there.
      def across(order, offset, count)
        rank = offset
        order.zip(Store::Jobs::PriorityLevels.lengths(@store, order)).each_with_object([]) do |((list, level), length), jobs|
          break jobs if count <= 0
          if offset >= length
            offset -= length
            next
          end
          found = Store::Jobs::Queues.page(@store, list, offset, count, level: level).each_with_index.map do |raw, i|
            QueuedJob.new(raw, offset + i, list, level: level, rank: rank + jobs.size + i)
          end
          jobs.concat(found)
          count -= found.size
          offset = 0
        end
      end

      def oldest
        @oldest = Store::Jobs::Queues.oldest(@store, @name) if @oldest == :unknown
        @oldest
      end
    end
  end
end
