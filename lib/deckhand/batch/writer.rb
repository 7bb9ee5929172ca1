# frozen_string_literal: true

require_relative "hold_release"

module Deckhand
  class Batch
    # Writes what a Collector gathered: every payload is encoded (and so
    # validated) first; then each batch is created or reopened, which holds it
    # open; then the jobs go out SLICE at a time, each slice one atomic script
    # call that registers the jids and pushes the jobs; then the holds are let
    # go, children first. While held, a batch cannot complete, so jobs that
    # finish during the write never see it done early. If Redis fails during
    # the pushes the holds stay and the batch never fires: a late batch is
    # better than one that reports success with jobs missing. Once every job
    # is out, Redis refusing to let go of a hold no longer fails the write
    # (Batch::HoldRelease). With
    # push_replicas set, a slice its replicas came short of is pushed all
    # the same: the others follow, the holds are let go, then NotReplicated
    # names every such job.
    #
    # When a Client.pusher is set (Deckhand::Testing, push-after-commit), the
    # script only registers the jids and the jobs go through the pusher.
    class Writer
      SLICE = Client::BULK_BATCH

      # One slice: its jids, payloads by queue, and [score, payload, ...] by
      # queue (cluster mode keeps a scheduled set per queue).
      Slice = Struct.new(:jids, :queued, :scheduled) do
        def scheduled_flat = scheduled.values.flatten(1)
      end

      def initialize(config)
        @config = config
      end

      def write(collector)
        slices = collector.groups.map { |group| [group.batch, encode(group)] }
        held = hold_all(collector.groups.map(&:batch))
        pusher = Client.pusher
        short = []
        slices.each do |batch, list|
          list.each do |slice|
            ops = Ops.script(@config)
            pusher ? ops.push(batch.bid, slice.jids) : ops.push(batch.bid, slice.jids, slice.queued, slice.scheduled)
            pusher&.call(slice.queued, slice.scheduled_flat, @config)
          rescue NotReplicated => e
            short << e # pushed and registered: the batch goes on, the caller learns of it at the end
          end
        end
        HoldRelease.new(@config).call(held.reverse.map(&:bid))
        raise unreplicated(short) unless short.empty?
      end

      private

      # push_replicas: every slice whose replicas came short, in one error.
      def unreplicated(errors)
        return errors.first if errors.one?
        first = errors.first
        jids = errors.flat_map(&:jids)
        NotReplicated.new("#{errors.size} pushes of this batch's #{jids.size} jobs came short of replicas; the first: #{first.message}",
          acknowledged: errors.map(&:acknowledged).min, wanted: first.wanted, jids: jids)
      end

      def hold_all(batches)
        held = []
        batches.each do |batch|
          existed = batch.created?
          hold(batch)
          held << [batch, existed]
        end
        held.map(&:first)
      rescue
        # Nothing was pushed: batches that existed before go back as they
        # were; new ones stay held, never fire, and expire.
        held.reverse_each { |batch, existed| Ops.script(@config).release(batch.bid) if existed }
        raise
      end

      def hold(batch)
        if batch.created?
          reply = Ops.script(@config).reopen(batch.bid)
          raise Closed, "batch #{batch.bid} #{(reply == "done") ? "succeeded already" : "does not exist (or expired)"}: no jobs can join it" unless reply == "ok"
        else
          reply = Ops.script(@config).create(batch.bid, **batch.creation_args)
          raise Closed, "batch #{batch.bid} cannot be created under parent #{batch.parent_bid}: #{reply}" unless reply == "ok"
          batch.created!
        end
      end

      def encode(group)
        max = @config.max_payload_bytes
        now = Payload.now(@config.timestamps, clock: @config.store.clock)
        group.jobs.each_slice(SLICE).with_index.map do |jobs, n|
          slice = Slice.new(jobs.map { |job| job["jid"] }, Hash.new { |hash, queue| hash[queue] = [] },
            Hash.new { |hash, queue| hash[queue] = [] })
          jobs.each_with_index do |job, i|
            at = group.ats[(n * SLICE) + i]
            if at
              slice.scheduled[job["queue"]] << at << Payload.encode(job, max_bytes: max)
            else
              job["enqueued_at"] = now
              slice.queued[job["queue"]] << Payload.encode(job, max_bytes: max)
            end
          end
          slice
        end
      end
    end
  end
end
