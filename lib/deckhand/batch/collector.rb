# frozen_string_literal: true

module Deckhand
  class Batch
    # Holds the jobs pushed inside Batch#jobs (through Client.collecting)
    # until the block returns; nothing reaches Redis before. A batch opened
    # inside another's block hands its jobs to the outer collector, so the
    # whole tree is written together, parents first, or not at all.
    class Collector
      # One batch's share: its jobs and their scheduled times (nil: now).
      Group = Struct.new(:batch, :jobs, :ats)
      private_constant :Group

      attr_reader :batch, :groups

      def initialize(batch)
        @batch = batch
        @own = Group.new(batch, [], [])
        @groups = [@own]
      end

      # Called by Client::Delivery.enqueue in place of its Redis round trip.
      def collect(jobs, ats)
        bid = @batch.bid
        jobs.each_with_index do |job, i|
          job["bid"] = bid
          @own.jobs << job
          @own.ats << (ats && ats[i])
        end
        nil
      end

      def adopt(inner)
        inner.groups.each do |group|
          mine = @groups.find { |g| g.batch.equal?(group.batch) }
          if mine
            mine.jobs.concat(group.jobs)
            mine.ats.concat(group.ats)
          else
            @groups << group
          end
        end
      end

      def jids = @own.jobs.map { |job| job["jid"] }
    end
  end
end
