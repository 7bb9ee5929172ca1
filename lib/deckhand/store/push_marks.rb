# frozen_string_literal: true

require_relative "scripts/push_mark"
require_relative "reply_witness"

module Deckhand
  class Store
    # Runs one transaction of a marked push (Store::MarkedPush) and, when
    # its reply is lost, asks Redis whether it ran: the mark says so, and
    # which writes Redis refused. Asking writes LOST under a mark that is
    # missing, with SET NX, so the answer is final: the transaction WATCHes
    # its mark (the WATCH answered before the transaction is sent), and one
    # that reaches Redis after the question finds the mark changed and runs
    # nothing.
    #
    #   refusals, lost = PushMarks.run(store, group, 5.0)
    #   refusals   # => {} (every write done), {part => error} (those Redis refused), nil (in doubt)
    #   PushMarks.recheck(store, doubt)   # => {part => error} once Redis answers, else nil
    module PushMarks # :nodoc:
      # Seconds a mark lives: how long after a lost reply Redis can still
      # say whether it ran the write.
      TTL = 600

      # Seconds a writer waits, after a lost reply, for Redis to answer.
      PATIENCE = 5.0

      DELAYS = [0.05, 0.1, 0.25, 0.5, 1.0].freeze

      # What asking leaves under a mark that was missing.
      LOST = "lost"

      # The writes of a transaction whose reply was lost and which Redis
      # has not said it ran: its mark, checks and commands (those of a
      # MarkedPush::Group), the error that lost the reply, and when
      # (monotonic seconds): past TTL, Redis can no longer tell.
      Doubt = Struct.new(:mark, :checks, :commands, :error, :since) do
        def parts = commands.map(&:last)

        # [queued, scheduled, scheduled_queues] of its jobs (MarkedPush.push_of).
        def push(parts = self.parts) = MarkedPush.push_of(commands.select { |_, part| parts.include?(part) })

        def expired? = Monotonic.now - since > TTL
      end

      # redis-cluster-client sends a watched transaction again after its
      # connection was lost: asked instead (the first may have run).
      class Resent < StandardError; end

      # Marks of transactions Redis said it ran: no one will ask about them
      # (MarkedPush.write tells, once it waited for the replicas), so the
      # next marked push of the same store to the same slot unlinks them,
      # at most CLEAN at a time, rather than leave one key per push (a
      # reliable push's) for TTL seconds.
      CLEAN = 100
      @lock = Mutex.new

      class << self
        # Remembers a mark Redis answered for.
        def answered(store, mark)
          @lock.synchronize do
            marks = (store.answered_marks[slot(mark)] ||= [])
            marks << mark
            marks.shift while marks.size > CLEAN * 10 # more than pushes ever leave between two: they expire
          end
        end

        # Takes the answered marks of `mark`'s slot, for its transaction to unlink.
        def answered_in_slot(store, mark)
          @lock.synchronize do
            marks = store.answered_marks[slot(mark)] or return []
            marks.shift(CLEAN)
          end
        end

        # The hash tag a mark carries in cluster mode ("{queue:a}"), the same
        # "deckhand" for every mark in plain mode.
        def slot(mark) = mark[0, mark.rindex(":push:")]
      end

      module_function

      # {part => error} of the parts Redis did not write (nil, the set of
      # queue names in plain mode, among them), or nil when Redis could not
      # say within `patience` seconds; and the error that lost the reply.
      def run(store, group, patience)
        sent = false
        mark = nil
        old = answered_in_slot(store, group.mark)
        ReplyWitness.forget
        store.with do |conn|
          ran = conn.multi(watch: [group.mark]) do |tx|
            raise Resent if sent
            sent = true
            tx.call(*Scripts::PushMark.command(group.mark, group.checks.map { |key, type, _| [key, type] }, TTL)) { |value| mark = value }
            group.commands.each { |command, _| tx.call_once(*command) }
            tx.call_once("UNLINK", *old) unless old.empty?
          end
          raise Resent unless ran # the WATCH fired: only a question changes a mark
        end
        [{}, nil]
      rescue Deckhand::CommandError => e
        # A write the mark tells of (the EXEC ran, the mark first), or a
        # refusal of the whole transaction (OOM, READONLY: nothing ran).
        mark ? [answer(store, group, mark), nil] : [all(group, e), nil]
      rescue Resent, Deckhand::ConnectionError => e
        lost(store, group, e, sent, patience)
      end

      # Asks again about a Doubt: {part => error} or nil while Redis cannot
      # tell (and for good once its mark may have expired).
      def recheck(store, doubt)
        return nil if doubt.expired?
        value = ask(store, doubt.mark, 0)
        value && answer(store, doubt, value, doubt.error)
      end

      # The question, once `patience` is spent: the mark's value, LOST when
      # Redis did not run the transaction (and now never will), nil when
      # it did not answer.
      def ask(store, mark, patience)
        deadline = Monotonic.now + patience
        attempt = 0
        begin
          store.pipelined do |pipe|
            pipe.call("SET", mark, LOST, "NX", "EX", TTL)
            pipe.call("GET", mark)
          end.last
        rescue Deckhand::ConnectionError
          delay = DELAYS[[attempt, DELAYS.size - 1].min]
          attempt += 1
          return nil if Monotonic.now + delay > deadline
          sleep delay
          retry
        end
      end

      # With push_replicas, waits for the replicas of the nodes that took
      # `marks`' transactions: a write of the mark on a connection of its own
      # (WAIT counts what its connection wrote, and a node replicates in
      # order, so the transaction is among what the WAIT waits for). Returns
      # [acknowledged, failure] when fewer replicas than wanted had it, else nil.
      def replicated(store, marks)
        return nil if store.durability.nil? || marks.empty?
        Connection::Durability.replies(store) { |pipe| marks.each { |mark| pipe.call("EXPIRE", mark, TTL) } }.last
      end

      # The parts a mark's value says Redis refused, each with its error;
      # for LOST, every part, with `lost` (the error that lost the reply).
      def answer(store, group, value, lost = nil)
        return all(group, translated(store, lost)) if value == LOST
        Scripts::PushMark.refused(value).to_h do |i|
          key, _, part = group.checks[i]
          [part, store.translation.wrong_type(key)]
        end
      end

      def all(group, error) = group.parts.to_h { |part| [part, error] }

      def lost(store, group, error, sent, patience)
        error = translated(store, error)
        return [all(group, error), nil] unless sent # nothing reached Redis
        value = ask(store, group.mark, patience)
        value ? [answer(store, group, value, error), nil] : [nil, error]
      end

      # The cluster client's own second try hides the error that lost the
      # first one's reply (ReplyWitness saw it).
      def translated(store, error)
        return error unless error.is_a?(Resent)
        lost = ReplyWitness.last
        raise ConnectionError, "lost the connection to Redis at #{store.location} while a push's transaction was under way " \
          "(#{lost ? lost.message : "the transaction was aborted"}); Redis was asked whether it ran it", cause: lost
      rescue ConnectionError => e
        e
      end
    end
  end
end
