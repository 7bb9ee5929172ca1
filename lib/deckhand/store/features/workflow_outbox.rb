# frozen_string_literal: true

require_relative "../layout/cluster_workflows"
require_relative "../scripts/batch/batch_callbacks"
require_relative "../scripts/workflow/workflow_outbox_entries"

module Deckhand
  class Store
    module Features
      # Cluster mode: hands the jobs of released workflow steps, which the
      # workflow scripts left in the outbox of the {workflows} slot, to their
      # queues, each in its own slot. Per entry: the job is pushed to its
      # queue once per jid (batch_callbacks.lua, which remembers the jids it
      # pushed in the queue's slot, Layout::ClusterWorkflows.pushed), and
      # only then cleared from the outbox. So a process that dies anywhere
      # in between loses nothing (the entry is still in the outbox: the next
      # pass pushes it) and doubles nothing (the queue remembers the jid: the
      # next pass's push is a no-op, and it clears the entry).
      #
      # Scripts::WorkflowOps runs a pass after each of its calls, taking
      # every entry (age 0: its own, and any a stopped process left); a
      # server's Server::Chores::WorkflowOutboxDrain runs one every 30 s for
      # entries older than AGE_MS, so a step released by a process that died
      # before pushing reaches its queue with no further workflow call. Two
      # passes taking the same entry at once push it once.
      #
      #   WorkflowOutbox.new(store, now_ms: store.clock.now_ms).deliver          # => 3 (jobs pushed)
      #   WorkflowOutbox.new(store, now_ms: now).deliver(age_ms: AGE_MS)         # only old entries
      class WorkflowOutbox # :nodoc:
        # Entries one listing takes, the oldest first.
        TAKE = 100
        # Listings in a row while each comes back full, before leaving the
        # rest to the next pass (a fan-out of 10,000 steps: 100 listings).
        ROUNDS = 100
        # The chore's age: younger entries are being pushed by their caller.
        AGE_MS = 30_000

        def initialize(store, now_ms:)
          @store = store
          @now_ms = now_ms
          @outbox = Scripts::WorkflowOutboxEntries.new(store)
          @pushes = Scripts::BatchCallbacks.new(store, now_ms: now_ms, names: Layout::ClusterWorkflows)
        end

        # Pushes the entries released at least `age_ms` ago; returns how many
        # jobs it put in their queues (0 for those another pass put there).
        # A queue that fails is left in the outbox and its error raised once
        # the other queues got theirs.
        def deliver(age_ms: 0)
          total = 0
          ROUNDS.times do
            entries = @outbox.list(@now_ms - age_ms, TAKE)
            total += hand_over(entries) unless entries.empty?
            break if entries.size < TAKE
          end
          total
        end

        private

        def hand_over(entries)
          failure = nil
          pushed = 0
          done = []
          entries.group_by { |_jid, queue, _payload| queue }.each do |queue, list|
            @store.call("SADD", @store.layout::QUEUES, queue)
            pushed += @pushes.push(queue, list.map { |jid, _, payload| [jid, payload] })
            done << [queue, list.map(&:first)]
          rescue Deckhand::RedisError => e
            failure ||= e
          end
          unless done.empty?
            @outbox.clear(done.flat_map(&:last)) # destination written first: the queue holds each job now
            done.each { |queue, jids| @pushes.delivered(queue, jids) }
          end
          raise failure if failure
          pushed
        end
      end
    end
  end
end
