# frozen_string_literal: true

module Deckhand
  class Batch
    # Writes what a Collector gathered: every payload is encoded (and so
    # validated) first; then each batch is created or reopened, which holds it
    # open; then the jobs go out SLICE at a time, each slice one atomic script
    # call that registers the jids and pushes the jobs; then the holds are let
    # go, children first. While held, a batch cannot complete, so jobs that
    # finish during the write never see it done early. If Redis fails during
    # the pushes the holds stay and the batch never fires: a late batch is
    # better than one that reports success with jobs missing.
    class Writer
      SLICE = Client::BULK_BATCH

      def initialize(config)
        @config = config
      end

      def write(collector)
        slices = collector.groups.map { |group| [group, encode(group)] }
        opened = []
        reopened = []
        begin
          collector.groups.each do |group|
            (group.batch.created? ? reopened : []) << group.batch
            hold(group.batch)
            opened << group.batch
          end
        rescue
          # Nothing was pushed: batches that existed before go back as they
          # were; new ones stay held, never fire, and expire.
          (opened & reopened).reverse_each { |batch| Ops.call(@config, "release", batch.bid) }
          raise
        end
        slices.each { |group, list| list.each { |argv| Ops.call(@config, "push", group.batch.bid, *argv) } }
        opened.reverse_each { |batch| Ops.call(@config, "release", batch.bid) }
      end

      private

      def hold(batch)
        if batch.created?
          reply = Ops.call(@config, "reopen", batch.bid)
          raise Closed, "batch #{batch.bid} #{(reply == "done") ? "succeeded already" : "does not exist (or expired)"}: no jobs can join it" unless reply == "ok"
        else
          reply = Ops.call(@config, "create", batch.bid, *batch._creation_args)
          raise Closed, "batch #{batch.bid} cannot be created under parent #{batch.parent_bid}: #{reply}" unless reply == "ok"
          batch._created!
        end
      end

      # The "push" arguments of each slice: jids, then payloads by queue, then
      # scheduled ones with their scores.
      def encode(group)
        max = @config.max_payload_bytes
        now = Payload.now(@config.timestamps)
        group.jobs.each_slice(SLICE).with_index.map do |jobs, n|
          queued = Hash.new { |hash, queue| hash[queue] = [] }
          scheduled = []
          jobs.each_with_index do |job, i|
            at = group.ats[(n * SLICE) + i]
            if at
              scheduled << at << Payload.encode(job, max_bytes: max)
            else
              job["enqueued_at"] = now
              queued[job["queue"]] << Payload.encode(job, max_bytes: max)
            end
          end
          [jobs.size, *jobs.map { |job| job["jid"] }, queued.size,
            *queued.flat_map { |queue, payloads| [queue, payloads.size, *payloads] },
            scheduled.size / 2, *scheduled]
        end
      end
    end
  end
end
