# frozen_string_literal: true

module Deckhand
  class Client
    # The client's side of partitioned queues (Config::Partitions):
    # `partition_by:` (a job option, or a key of the pushed Hash) picks the
    # partition a job goes to, and no queue may take a partition's name.
    #
    #   item, by = PartitionKeys.split("class" => "Sync", "args" => [7], "partition_by" => ->(args) { args.first })
    #   PartitionKeys.key(by, [7])                                           # => 7
    #   PartitionKeys.own_queue!("class" => "Sync", "queue" => "mail~p1")    # raises InvalidJob
    module PartitionKeys # :nodoc:
      module_function

      def asked?(item) = item.is_a?(Hash) && (item.key?("partition_by") || item.key?(:partition_by))

      # A key, or a callable given the job's args that returns one. It is not
      # stored in the job. Returns the item without it, and it.
      def split(item)
        return [item, nil] unless asked?(item)
        by = item["partition_by"] || item[:partition_by]
        [item.except("partition_by", :partition_by), by]
      end

      # Names ending like a partition's list are Deckhand's own
      # (Store::Layout::PartitionNames): no queue can be another's partition.
      def own_queue!(job)
        queue = job["queue"]
        return job unless Store::Layout::PartitionNames.partition?(queue)
        raise InvalidJob, "queue name #{queue.inspect} for #{job["class"]} ends like a partition's list (~p<n>), which Deckhand " \
          "keeps for partitioned queues: push to the queue (#{Store::Layout::PartitionNames.base(queue).inspect}) or choose another name"
      end

      def key(by, args)
        key = by.respond_to?(:call) ? by.call(args) : by
        raise InvalidJob, "partition_by gave nil for args #{args.inspect[0, 80]}; return a key (a String or Integer)" if key.nil?
        key
      end
    end
  end
end
