# frozen_string_literal: true

require_relative "queue_placement"
require_relative "collapse_record_move"
require_relative "../scripts/move/queue_move_batch"
require_relative "../jobs/priority_pushes"
require_relative "../jobs/held_classes"

module Deckhand
  class Store
    module Tags
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
      #    servers follow at their next beat and work the queue again there,
      #    pushing processes push there within QueuePlacement::REFRESH seconds.
      # 3. copy, while the queue is worked: the old list, a fair queue's
      #    tenants' jobs, each priority level's list (its level named in the
      #    new tag's set of levels first, so servers fetch it there from
      #    their next beat), the held sets of the classes paused now, then
      #    the scheduled, retry and dead entries, in
      #    batches (Scripts::QueueMoveBatch): each batch is held in the old
      #    slot as it leaves, written once under the new tag (a marker of its
      #    id), then released; newest jobs first, each batch to the end of the
      #    new list fetched first, so the oldest come out first; tenants' jobs
      #    lowest scores first, each keeping its lead over the queue's virtual
      #    time, so the tenants keep their turns. Last, the records of its
      #    debounced and deduplicated keys, beside the jobs they name (CollapseRecordMove).
      # 4. finish: once every server follows the switch and the pushing
      #    processes' refresh time passed, a last copy of late pushes (and of
      #    jobs stranded under tags earlier moves retired).
      #
      #   move = Deckhand::Store::Tags::QueueMove.new(store)
      #   move.call("mail", to: "{queue~3:mail}")
      #   # => #<struct Result queue="mail", from="{queue:mail}", to="{queue~3:mail}", jobs=1200, entries=3, seconds=6.2, paused=3.1, copy=0.4>
      #
      # A move cut short before the switch is undone (the queue is worked again
      # where it was); after it, running the move again finishes it, each job
      # written once.
      class QueueMove # :nodoc:
        # seconds: the whole move; paused: from its start to the switch (the
        # servers work the queue again at their next beat after it); copy:
        # copying the jobs and entries (the queue worked meanwhile).
        Result = Struct.new(:queue, :from, :to, :jobs, :entries, :seconds, :paused, :copy)

        BATCH = 500

        # An idle server's wait blocked in Redis when its queue was paused
        # ends within this many seconds (Server::Fetch::Idle::IdleWaiter::TIMEOUT, plus a
        # margin); until then it could still take a job from the old list.
        WAIT_ENDS = 2.5

        # Seconds beyond QueuePlacement::REFRESH for a push sent with the old
        # tag just before its process refreshed to reach Redis.
        LATE_MARGIN = 0.5

        # Seconds the move's lock lives without news of the mover (the copy
        # prolongs it at every batch).
        LOCK_TTL = 60

        # Seconds a move waits for the lock before it gives up.
        LOCK_WAIT = 5

        # timeout: seconds to wait for every process to follow a step.
        def initialize(store, timeout: 60, interval: 0.05)
          @store = store
          @placement = store.layout.placement
          @timeout = timeout
          @interval = interval
        end

        # Moves `queue` to `to` (a tag); resumes a move of it under way.
        def call(queue, to:)
          started = Monotonic.now
          ttl = [LOCK_TTL, @timeout * 4].max
          # The servers' sweep of retired tags holds the lock a moment too.
          moved = Moves.holding(@store, ttl, wait: LOCK_WAIT, interval: @interval) do |token|
            @token = token
            @placement.follow(Moves.epoch(@store)) # this process may have missed an earlier move
            state = Moves.under_way(@store)[queue] || start(queue, to)
            epoch = (state["step"] == "pause") ? switch(queue, state) : Moves.epoch(@store)
            state = state.merge("step" => "copy")
            paused = Monotonic.now - started
            jobs, entries, copy = finish(queue, state, epoch)
            Result.new(queue, state["from"], state["to"], jobs, entries, (Monotonic.now - started).round(3), paused.round(3), copy.round(3))
          end
          moved or raise PlacementError, "another queue move is under way (#{Moves::LOCK} is held); wait for it to finish " \
            "(the lock of a mover that died expires within #{ttl.round}s), then run this one again"
        end

        private

        Moves = Tags::QueuePlacement::Moves

        def start(queue, to)
          from = @placement.tag(queue)
          raise PlacementError, "queue #{queue.inspect} already has the tag #{to}" if from == to
          check_tag(queue, to)
          state = {"from" => from, "to" => to, "step" => "pause"}
          Moves.record(@store, queue, state)
          state
        end

        def check_tag(queue, to)
          candidates = Array.new(Tags::QueuePlacement::CANDIDATES) { |n| Layout::Cluster.candidate(queue, n) }
          return if candidates.include?(to)
          raise PlacementError, "#{to.inspect} is not a tag queue #{queue.inspect} can take: use one of " \
            "#{candidates.first(3).join(", ")}, ..."
        end

        # Step 1, then 2. A move that cannot pause the queue is undone, also
        # when it is interrupted (Ctrl-C); only a mover killed outright leaves
        # the queue paused, until the move runs again.
        def switch(queue, state)
          begin
            followed(Moves.epoch(@store))
            sleep(WAIT_ENDS)
            idle(state["from"])
          rescue Exception # rubocop:disable Lint/RescueException -- a paused queue must not stay paused
            Moves.finish(@store, queue)
            raise
          end
          epoch = Moves.switch(@store, queue, state.merge("step" => "copy"))
          @placement.follow(epoch)
          epoch
        end

        # Steps 3 and 4; `epoch` is the switch's.
        def finish(queue, state, epoch)
          switched = Monotonic.now
          jobs, entries = copy_all(state)
          copying = Monotonic.now - switched
          # Servers push the queue's jobs (jobs that push jobs, scheduled
          # ones coming due) under the old tag until they follow the switch;
          # pushing processes without a heartbeat follow within REFRESH
          # seconds. What they pushed meanwhile comes along now.
          followed(epoch)
          late = Tags::QueuePlacement::REFRESH + LATE_MARGIN - (Monotonic.now - switched)
          sleep(late) if late.positive?
          late = Monotonic.now
          jobs, entries = copy_all(state).zip([jobs, entries]).map(&:sum)
          # Jobs an out-of-date process pushed under a tag an earlier move
          # retired come along too.
          Moves.retired(@store).each { |tag, name| jobs += copy_jobs(tag, state["to"]) if name == queue && tag != state["to"] }
          copying += Monotonic.now - late
          Moves.finish(@store, queue)
          [jobs, entries, copying]
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
            owners.empty? || @store.call("EXISTS", *owners.flat_map { |id| [Layout::TagNames.inflight(tag, id), Layout::TagNames.landing(tag, id)] }).zero?
          end
        end

        def copy_all(state)
          from, to = state.values_at("from", "to")
          copied = [copy_jobs(from, to), Layout::TagNames::SETS.sum { |set| copy(Layout::TagNames.set(from, set), Layout::TagNames.set(to, set), "zset") }]
          CollapseRecordMove.new(@store).call(from, to) { Moves.prolong(@store, @token, LOCK_TTL) }
          copied
        end

        # The queue's list, a fair queue's tenants' jobs, its priority
        # levels' lists and its held jobs, from tag to tag.
        def copy_jobs(from, to) = copy(from, to, "list") + copy(from, to, "fair") + copy_levels(from, to) + copy_held(from, to)

        # Each level's list (docs/priority.md), its level named under the new
        # tag before its first job gets there: a server fetches a level's list
        # once its heartbeat read the level in the queue's set. The old set
        # stays: a push from a process not yet following names its level there.
        def copy_levels(from, to)
          levels = Jobs::PriorityPushes.parse(@store.call("SMEMBERS", Layout::TagNames.priorities(from)))
          return 0 if levels.empty?
          @store.call("SADD", Layout::TagNames.priorities(to), *levels)
          levels.sum { |level| copy(Layout::TagNames.priority(from, level), Layout::TagNames.priority(to, level), "list") }
        end

        # The jobs held aside while their class is paused (Jobs::HeldClasses),
        # to the class's held set under the new tag, where its resume looks.
        # Those of a class resumed meanwhile are gathered by the resume itself.
        def copy_held(from, to)
          Jobs::HeldClasses.paused(@store).sum { |name| copy(Layout::TagNames.held(from, name), Layout::TagNames.held(to, name), "zset") }
        end

        # Batch after batch until `from` is empty (Scripts::QueueMoveBatch).
        def copy(from, to, kind)
          batch = Scripts::QueueMoveBatch.new(@store)
          moved = 0
          loop do
            Moves.prolong(@store, @token, LOCK_TTL)
            taken = batch.call(from, to, kind: kind, limit: BATCH)
            return moved if taken.zero?
            moved += taken
          end
        end

        def wait_until(seconds, what)
          deadline = Monotonic.now + seconds
          until yield
            if Monotonic.now >= deadline
              raise PlacementError, "gave up after #{seconds}s waiting for #{what}; is every server running? " \
                "Run the move again to retry"
            end
            sleep(@interval)
          end
        end
      end
    end
  end
end
