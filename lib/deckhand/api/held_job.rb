# frozen_string_literal: true

require_relative "job_record"

module Deckhand
  class API
    # A job of a paused class, fetched and held aside in its queue until the
    # class resumes (ClassPauses): found by jid (ClassPauses#find_held) or by
    # an argument (JobSearch).
    #
    #   held = api.class_pauses.find_held("b4a577edbccf1d805744efa9")
    #   held.queue        # => "reports" (a partition's queue, for a partitioned one)
    #   held.held_class   # => "ReportJob", the paused class it is held for
    class HeldJob < JobRecord
      # queue: the queue it waits in (whatever its payload says); list: the
      # list it was fetched from (a partition's); held_class: the paused
      # class name it is held under.
      attr_reader :queue, :list, :held_class

      def initialize(raw, list, held_class)
        super(raw)
        @list = list
        @queue = Store::Layout::PartitionNames.base(list)
        @held_class = held_class
      end
    end
  end
end
