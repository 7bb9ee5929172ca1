# frozen_string_literal: true

module Deckhand
  class Batch
    # Holds the jobs pushed inside Batch#jobs (through Client.collecting)
    # until the block returns; nothing reaches Redis before. A batch opened
    # inside another's block hands its jobs to the outer collector, so the
    # whole tree is written together, parents first, or not at all.
    #
    # `held_over`: the batches an incomplete write of this batch left held.
    # A job given back by that write (it names one of them in "bid") joins
    # the batch it names again, a child's too; any other job joins this one.
    class Collector # :nodoc:
      # One batch's share: its jobs and their scheduled times (nil: now).
      Group = Struct.new(:batch, :jobs, :ats)
      private_constant :Group

      attr_reader :batch, :groups

      def initialize(batch, held_over = [])
        @batch = batch
        @own = Group.new(batch, [], [])
        @groups = [@own]
        @held_over = held_over.to_h { |held| [held.bid, held] }
      end

      # Called by Client::Delivery.enqueue in place of its Redis round trip.
      def collect(jobs, ats)
        jobs.each_with_index do |job, i|
          group = group_of(@held_over[job["bid"]])
          job["bid"] = group.batch.bid
          group.jobs << job
          group.ats << (ats && ats[i])
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

      private

      def group_of(batch)
        return @own if batch.nil? || batch.equal?(@batch)
        @groups.find { |group| group.batch.equal?(batch) } || Group.new(batch, [], []).tap { |group| @groups << group }
      end
    end
  end
end
