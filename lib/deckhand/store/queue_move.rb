# frozen_string_literal: true

require "securerandom"
require_relative "queue_placement"

module Deckhand
  class Store
    # Moves one queue to a new hash tag (another primary) in cluster mode
    # while clients push and servers work the fleet (docs/cluster.md, "Moving
    # a queue"). A cross-slot script is impossible, so the move takes steps,
    # each recorded in the fleet's slot with a new placement epoch:
    #
    # 1. pause: the queue is recorded as being moved; every server's next
    #    heartbeat stops fetching it, the mover waits until every live
    #    process reports the epoch and no process holds a job of the queue
    #    under the old tag (they finish and are acknowledged there).
    # 2. switch: the placement names the new tag, the old one is retired;
    #    servers follow at their next beat, pushing processes within
    #    QueuePlacement::REFRESH seconds, and push there.
    # 3. copy: the old list, job by job, oldest last so the order holds: each
    #    job is written to the new list before it is removed from the old
    #    one (a job found in both after a crash is only removed); then the
    #    scheduled, retry and dead entries, each added to the new set before
    #    it leaves the old one. Nobody fetches either list meanwhile.
    # 4. finish: after the pushing processes' refresh time, a last copy of
    #    late pushes, and the queue is worked again, under its new tag.
    #
    #   move = Deckhand::Store::QueueMove.new(store)
    #   move.call("mail", to: "{queue~3:mail}")   # => #<struct Result queue="mail", from=..., to=..., jobs=1200, entries=3, seconds=4.1>
    #
    # A move cut short before the switch is undone (the queue is worked again
    # where it was); after it, running the move again finishes it.
    class QueueMove
      # seconds: the whole move (the queue is not worked meanwhile); copy:
      # of them, copying the jobs and entries.
      Result = Struct.new(:queue, :from, :to, :jobs, :entries, :seconds, :copy)

      BATCH = 500

      # An idle server's wait blocked in Redis when its queue was paused
      # ends within this many seconds (Server::IdleWaiter::TIMEOUT, plus a
      # margin); until then it could still take a job from the old list.
      WAIT_ENDS = 2.5

      # Seconds beyond QueuePlacement::REFRESH for a push sent with the old
      # tag just before its process refreshed to reach Redis.
      LATE_MARGIN = 0.5

      SETS = %w[schedule retry dead].freeze

      # Seconds the move's lock lives without news of the mover (the copy
      # prolongs it at every batch).
      LOCK_TTL = 60

      # timeout: seconds to wait for every process to follow a step.
      def initialize(store, timeout: 60, interval: 0.05)
        @store = store
        @placement = store.layout.placement
        @timeout = timeout
        @interval = interval
      end

      # Moves `queue` to `to` (a tag); resumes a move of it under way.
      def call(queue, to:)
        started = monotonic
        token = SecureRandom.hex(8)
        unless Moves.lock(@store, token, [LOCK_TTL, @timeout * 4].max)
          raise PlacementError, "another queue move is under way (#{Moves::LOCK} is held); wait for it to finish " \
            "(the lock of a mover that died expires within #{LOCK_TTL}s), then run this one again"
        end
        @token = token
        begin
          state = Moves.under_way(@store)[queue] || start(queue, to)
          state = switch(queue, state) if state["step"] == "pause"
          jobs, entries, copy = finish(queue, state)
          Result.new(queue, state["from"], state["to"], jobs, entries, (monotonic - started).round(3), copy.round(3))
        ensure
          Moves.unlock(@store, token)
        end
      end

      private

      Moves = QueuePlacement::Moves

      def start(queue, to)
        from = @placement.tag(queue)
        raise PlacementError, "queue #{queue.inspect} already has the tag #{to}" if from == to
        check_tag(queue, to)
        if @store.call("EXISTS", "#{from}:fair", "#{from}:tenants").positive?
          raise PlacementError, "queue #{queue.inspect} holds jobs waiting for their fair share (docs/fair-queues.md), " \
            "which a move does not carry yet; move it once those are worked off"
        end
        state = {"from" => from, "to" => to, "step" => "pause"}
        Moves.record(@store, queue, state)
        state
      end

      def check_tag(queue, to)
        candidates = Array.new(QueuePlacement::CANDIDATES) { |n| Layout::Cluster.candidate(queue, n) }
        return if candidates.include?(to)
        raise PlacementError, "#{to.inspect} is not a tag queue #{queue.inspect} can take: use one of " \
          "#{candidates.first(3).join(", ")}, ..."
      end

      # Step 1, then 2. A move that cannot pause the queue is undone.
      def switch(queue, state)
        begin
          followed(Moves.epoch(@store))
          sleep(WAIT_ENDS)
          idle(state["from"])
        rescue PlacementError, RedisError
          Moves.finish(@store, queue)
          raise
        end
        state = state.merge("step" => "copy")
        epoch = Moves.switch(@store, queue, state)
        @placement.follow(epoch)
        followed(epoch)
        state
      end

      # Steps 3 and 4.
      def finish(queue, state)
        switched = monotonic
        jobs, entries = copy_all(state)
        copy = monotonic - switched
        # Pushing processes (no heartbeat) follow within REFRESH seconds;
        # what they pushed meanwhile comes along now.
        late = QueuePlacement::REFRESH + LATE_MARGIN - (monotonic - switched)
        sleep(late) if late.positive?
        late = monotonic
        jobs, entries = copy_all(state).zip([jobs, entries]).map(&:sum)
        copy += monotonic - late
        # Jobs an out-of-date process pushed under a tag an earlier move
        # retired come along too.
        Moves.retired(@store).each { |tag, name| jobs += copy_list(tag, state["to"]) if name == queue && tag != state["to"] }
        Moves.finish(@store, queue)
        [jobs, entries, copy]
      end

      # Every live process follows `epoch` (its heartbeat applied it).
      def followed(epoch)
        wait_until(@timeout, "every process to follow placement epoch #{epoch}") do
          identities = @store.call("SMEMBERS", @store.layout::PROCESSES)
          seen = @store.pipelined { |pipe| identities.each { |id| pipe.call("HMGET", @store.layout.process(id), "beat", "placement") } }
          identities.zip(seen).all? do |id, (beat, placement)|
            next true if beat.nil? # its record expired: a dead process
            if placement.nil?
              raise PlacementError, "process #{id} runs a Deckhand that does not follow queue moves; " \
                "finish deploying this version everywhere, then move the queue"
            end
            placement.to_i >= epoch
          end
        end
      end

      # No process holds a job under `tag` (running, or in a landing list).
      def idle(tag)
        wait_until(@timeout, "the jobs in flight under #{tag} to finish") do
          owners = @store.call("HKEYS", @store.layout::OWNERS)
          owners.empty? || @store.call("EXISTS", *owners.flat_map { |id| ["#{tag}:inflight:#{id}", "#{tag}:landing:#{id}"] }).zero?
        end
      end

      # Newest first from the old list's head to the new list's tail, so the
      # oldest job ends up next to be fetched there, as it was. A job already
      # at the new list's tail (a copy cut short) is only removed.
      def copy_list(from, to)
        moved = 0
        loop do
          batch = @store.call("LRANGE", from, 0, BATCH - 1)
          return moved if batch.empty?
          Moves.prolong(@store, @token, LOCK_TTL)
          there = @store.pipelined { |pipe| batch.each { |job| pipe.call("LPOS", to, job, "RANK", -1, "MAXLEN", BATCH) } }
          missing = batch.zip(there).filter_map { |job, at| job if at.nil? }
          @store.call("RPUSH", to, *missing) unless missing.empty?
          @store.pipelined { |pipe| batch.each { |job| pipe.call("LREM", from, 1, job) } }
          moved += missing.size
        end
      end

      def copy_all(state)
        [copy_list(state["from"], state["to"]), SETS.sum { |set| copy_set("#{state["from"]}:#{set}", "#{state["to"]}:#{set}") }]
      end

      # Each entry added to the new set (same score) before it leaves the old.
      def copy_set(from, to)
        moved = 0
        loop do
          batch = @store.call("ZRANGE", from, 0, BATCH - 1, "WITHSCORES")
          return moved if batch.empty?
          batch = batch.each_slice(2).to_a unless batch.first.is_a?(Array) # RESP2 replies flat
          @store.call("ZADD", to, *batch.flat_map { |member, score| [score, member] })
          @store.call("ZREM", from, *batch.map(&:first))
          moved += batch.size
        end
      end

      def wait_until(seconds, what)
        deadline = monotonic + seconds
        until yield
          if monotonic >= deadline
            raise PlacementError, "gave up after #{seconds}s waiting for #{what}; is every server running? " \
              "Run the move again to retry"
          end
          sleep(@interval)
        end
      end

      def monotonic = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)
    end
  end
end
