# frozen_string_literal: true

require "securerandom"
require_relative "hold_release"
require_relative "slice_fate"

module Deckhand
  class Batch
    # Writes what a Collector gathered: every payload is encoded (and so
    # validated) first; then each batch is created or reopened, which holds it
    # open; then the jobs go out SLICE at a time, each slice one atomic script
    # call that registers the jids and pushes the jobs (in cluster mode the
    # script registers them, then the jobs go as a marked push,
    # Store::MarkedPush); then the holds are let go, children first. While
    # held, a batch cannot complete, so jobs that finish during the write
    # never see it done early.
    #
    # Each slice carries a mark (Store::PushMarks): when its reply is lost,
    # Redis is asked whether it ran it, and a slice it ran is no failure.
    # When a slice is not written, the write stops and raises an error
    # carrying Deckhand::PushIncomplete: which jobs are queued, which are
    # not. The holds stay (a late batch is better than one that reports
    # success with jobs missing) and the Batch remembers them: its next
    # `jobs` block takes the jobs given back (each to the batch it names)
    # and lets those holds go once it is written (Batch#jobs). Once every job
    # is out, Redis refusing to let go of a hold no longer fails the write
    # (Batch::HoldRelease). With push_replicas set, a slice its replicas
    # came short of is pushed all the same: the others follow, the holds
    # are let go, then NotReplicated names every such job.
    #
    # When a Client.pusher is set (Deckhand::Testing, push-after-commit), the
    # script only registers the jids and the jobs go through the pusher.
    #
    #   Writer.new(config).write(collector)           # => nil, or raises
    #   Writer.new(config).write(collector, [child])  # also lets go of holds an earlier write left
    class Writer # :nodoc: all
      SLICE = Client::BULK_BATCH

      # One slice: its jids, payloads by queue, and [score, payload, ...] by
      # queue (cluster mode keeps a scheduled set per queue).
      Slice = Struct.new(:jids, :queued, :scheduled) do
        def scheduled_flat = scheduled.values.flatten(1)

        def scheduled_queues = scheduled.flat_map { |queue, entries| [queue] * (entries.size / 2) }
      end

      def initialize(config)
        @config = config
      end

      # `left`: batches whose holds an earlier, incomplete write left.
      def write(collector, left = [])
        slices = collector.groups.map { |group| [group, encode(group)] }
        held = hold_all(collector.groups.map(&:batch))
        fate = SliceFate.new(@config, collector.groups)
        short = []
        slices.each do |group, list|
          list.each do |slice|
            failure = push(group.batch, slice)
          rescue NotReplicated => e
            fate.written(slice.jids)
            short << e # pushed and registered: the batch goes on, the caller learns of it at the end
          rescue => e # a pusher's own error, or one Redis gave no answer for: the slice is not written
            collector.batch.held_over!(held + left)
            raise fate.incomplete(e, nil, slice)
          else
            next fate.written(slice.jids) unless failure
            collector.batch.held_over!(held + left)
            raise fate.incomplete(*failure, slice)
          end
        end
        HoldRelease.new(@config).call((held + left).reverse.map(&:bid))
        raise unreplicated(short) unless short.empty?
      end

      private

      # Writes a slice: nil when Redis has it all, else [error, detail]: the
      # error that stopped it, and the outcome of the marked write of its
      # jobs (cluster mode, or through a pusher), or the mark of the script
      # that pushes them (plain mode) when Redis did not say whether it ran,
      # or nil when none of its jobs was written. A registration alone that
      # Redis did not answer about leaves the jobs unwritten: pushed again,
      # a jid registered counts once.
      def push(batch, slice)
        pusher = Client.pusher
        apart = @config.store.layout.batches.outbox? && !pusher
        scripted = !pusher && !apart # the script pushes the jobs itself
        error, mark = register(Ops.script(@config), batch, slice, scripted ? [slice.queued, slice.scheduled] : [])
        return [error, scripted ? mark : nil] if error
        return nil if scripted
        outcome = pusher ? through(pusher, slice) : pushed_apart(slice)
        raise outcome.not_replicated if outcome&.not_replicated && !outcome.left && outcome.doubt.empty?
        (outcome&.left || !outcome.nil? && !outcome.doubt.empty?) ? [outcome.refusal, outcome] : nil
      end

      # Cluster mode: the jobs, in their queues' slots, as a marked push.
      def pushed_apart(slice)
        queues = slice.scheduled_queues
        Store::Jobs::Queues.push_marked(@config.store, slice.queued, slice.scheduled_flat, queues.all? ? queues : nil, logger: @config.logger)
      end

      # Through a pusher: the outcome of the marked write Client.write made
      # for it (Client::SLICE), or nil when it wrote nothing itself
      # (Deckhand::Testing keeps the jobs).
      def through(pusher, slice)
        outcomes = Outcomes.new([])
        previous = Thread.current[Client::SLICE]
        Thread.current[Client::SLICE] = outcomes
        pusher.call(slice.queued, slice.scheduled_flat, @config)
        outcomes.list.find { |outcome| outcome.left || !outcome.doubt.empty? } || outcomes.list.first
      ensure
        Thread.current[Client::SLICE] = previous
      end

      # What Client.write reports for a slice written through a pusher.
      Outcomes = Struct.new(:list) do
        def written(_queued, _scheduled, outcome) = list << outcome

        def scripted(*) = nil
      end
      private_constant :Outcomes

      # The script's call, with its mark: [nil] once Redis ran it, else the
      # error and, when Redis did not say whether it ran, the mark.
      def register(ops, batch, slice, jobs)
        mark = @config.store.layout.batches.push_mark(SecureRandom.urlsafe_base64(12))
        reply = ops.push(batch.bid, slice.jids, *jobs, mark: mark)
        return [Closed.new("batch #{batch.bid} expired while its jobs were written: no jobs can join it")] if reply == "gone"
        [nil]
      rescue CommandError => e
        [e] # refused before it wrote anything (batch_guard)
      rescue ConnectionError => e
        answer = Store::PushMarks.ask(@config.store, mark, Store::PushMarks::PATIENCE)
        return [nil] if answer&.start_with?(Store::Scripts::PushMark::WRITTEN)
        [e, answer ? nil : mark] # LOST: it did not run, and now never will; nil: Redis did not say
      end

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
