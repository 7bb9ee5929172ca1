# frozen_string_literal: true

require "securerandom"
require_relative "jobs/held_push"
require_relative "push_marks"
require_relative "scripts/push_mark"

module Deckhand
  class Store
    # The write of a push whose outcome must be known even when its reply is
    # lost (a bulk push's slice, a batch's jobs in cluster mode, a reliable
    # push): the jobs' writes go out as one MULTI/EXEC per slot, run all
    # together or not at all, and the first command of each is the push's
    # mark (Scripts::PushMark), a short-lived key in the same slot that
    # says the transaction ran and which of its writes Redis refused. When
    # the reply of the EXEC is lost, Redis is asked (Store::PushMarks): the
    # answer is exact, never a guess, and the caller writes again only what
    # did not land. The cost is per push, not per job: a WATCH round trip
    # before the transaction, the mark, MULTI and EXEC.
    #
    # The WATCH of the mark, answered before the transaction is sent, makes
    # the question final: asking writes the mark when it is missing, so a
    # transaction still on its way (a request held up in the network past
    # the client's timeout) finds its mark changed and does not run.
    #
    # Plain mode writes everything in one transaction, the set of queue
    # names included. In cluster mode each slot the push writes to gets a
    # transaction and a mark of its own (one after the other), and the set
    # of queue names, in another slot, is written after them: its refusal,
    # or a connection lost then, is a warning, as for any push (`unlisted`).
    #
    #   outcome = MarkedPush.write(store, {"default" => [json, ...]}, [], fair: config.fair_queues)
    #   outcome.left      # => nil, or [queued, scheduled, scheduled_queues] Redis did not take
    #   outcome.refusal   # => why (a Deckhand::RedisError), or nil
    #   outcome.doubt     # => [] or the PushMarks::Doubt of writes Redis did not say it ran
    #   outcome.unlisted, outcome.not_replicated   # as Store::Jobs::HeldPush's
    module MarkedPush # :nodoc:
      # One transaction: its mark, what the mark checks ([key, type, part]
      # each) and its commands ([command, part] each, Store::Jobs::HeldPush.plan's).
      Group = Struct.new(:mark, :checks, :commands) do
        def parts = commands.map(&:last)
      end

      module_function

      # `patience`: seconds to wait for Redis to answer whether it ran a
      # transaction whose reply was lost (what it does not answer meanwhile
      # is in `doubt`).
      def write(store, queued, scheduled, scheduled_queues = nil, fair: nil, patience: PushMarks::PATIENCE)
        queued, tenants = Jobs::FairPushes.split(queued, fair)
        queued, levels = Jobs::PriorityPushes.split(queued)
        keys = store.layout
        sets = Jobs::Queues.scheduled_sets(keys, scheduled, scheduled_queues)
        begin
          keys.place(queued.keys | sets.keys | tenants.keys | levels.keys) unless keys.plain?
        rescue Deckhand::RedisError => e # a new queue's placement: nothing was written
          return Jobs::HeldPush::Outcome.new([Jobs::HeldPush.joined(queued, tenants, levels), scheduled, scheduled_queues], e, nil, nil, Jobs::HeldPush::NO_DOUBT)
        end
        commands = Jobs::HeldPush.plan(keys, queued, sets, tenants, levels)
        return Jobs::HeldPush::Outcome.new(nil, nil, nil, nil, Jobs::HeldPush::NO_DOUBT) if commands.empty?
        names = commands.pop unless keys.plain? || commands.last&.last # cluster: the set of queue names apart
        refusals, doubts, marks = {}, [], []
        groups(keys, commands).each do |group|
          refused, lost = PushMarks.run(store, group, patience)
          next doubts << PushMarks::Doubt.new(group.mark, group.checks, group.commands, lost, now) unless refused
          refusals.merge!(refused)
          marks << group.mark unless (group.parts.compact - refused.keys).empty?
        end
        unlisted = refusals.delete(nil)
        unregistered = refusals.keys.select { |part| part&.first == :levels }.map { |part| refusals.delete(part) }.first
        # The set of queue names is bookkeeping for jobs Redis holds (or may):
        # its refusal is worth a warning only then, and it is written only then.
        unlisted = nil if marks.empty?
        unlisted ||= list(store, names) if names && !(marks.empty? && doubts.empty?)
        unwritten = refusals.keys + doubts.flat_map(&:parts).compact
        left = refusals.empty? ? nil : Jobs::HeldPush.left(keys, queued, sets, scheduled_queues, refusals.keys, tenants, levels)
        short = PushMarks.replicated(store, marks)
        marks.each { |mark| PushMarks.answered(store, mark) } # after the WAIT: its write is the mark's
        not_replicated = short && Jobs::HeldPush.not_replicated(store, Jobs::HeldPush.joined(queued, tenants, levels), sets, unwritten, short)
        Jobs::HeldPush::Outcome.new(left, refusals.values.first || doubts.first&.error, not_replicated, unlisted, doubts, unregistered)
      end

      # Plain mode: one group. Cluster mode: one per slot, by the queue each
      # part writes to (the tag of its keys).
      def groups(keys, commands)
        id = SecureRandom.urlsafe_base64(12)
        slots = keys.plain? ? {nil => commands} : commands.group_by { |_, (_, queue)| keys.queue(queue) }
        slots.map do |_, group|
          queue = group.first.last&.[](1) # [kind, queue, ...]
          Group.new(keys.push_mark(queue, id), group.flat_map { |_, part| checks(keys, part) }, group)
        end
      end

      # [key, type, part] of each key a part writes.
      def checks(keys, part)
        kind, queue = part
        case kind
        when :queued then [[keys.queue(queue), "list", part]]
        when :priority then [[keys.priority(queue, part[2]), "list", part]]
        when :levels then [[keys.priorities(queue), "set", part]]
        when :scheduled then [[keys.scheduled_set(queue), "zset", part]]
        when :fair then [[keys.queue(queue), "list", part], [keys.fair_jobs(queue), "zset", part], [keys.fair_tenants(queue), "hash", part]]
        else [[keys::QUEUES, "set", nil]]
        end
      end

      # [queued, scheduled, scheduled_queues] of the jobs `commands` ([command,
      # part] of HeldPush.plan) write, as a push takes them: to write again
      # what Redis did not take. The set of queue names writes no job.
      def push_of(commands)
        queued = Hash.new { |hash, queue| hash[queue] = [] }
        scheduled = []
        queues = []
        commands.each do |command, (kind, name)|
          case kind
          when :queued, :priority then queued[name].concat(command.drop(2))
          when :fair then queued[name].concat(command.drop(6).each_slice(3).map(&:last))
          when :scheduled
            entries = command.drop(2)
            scheduled.concat(entries)
            queues.concat([name] * (entries.size / 2))
          end
        end
        [queued, scheduled, queues.any? ? queues : nil]
      end

      def now = Monotonic.now

      # Cluster mode: the set of queue names, once the jobs are written;
      # returns its refusal, or nil.
      def list(store, (command, _))
        reply = store.pipelined(exception: false) { |pipe| pipe.call(*command) }.first
        reply.is_a?(RedisClient::Error) ? store.refusal(reply) : nil
      rescue Deckhand::RedisError => e
        e
      end
    end
  end
end
