# frozen_string_literal: true

require_relative "shares"
require_relative "../fetch/hand_back"

module Deckhand
  module Server
    module Balance
      # An auto-balanced capsule's jobs fetched and not started, in place of
      # Fetch::Buffer, with what the balancer decided for its queues: a cap on
      # the jobs of a queue running at once, and each queue's backlog, which
      # splits every fetch (#plan). A processor takes the first job whose
      # queue is under its cap; a job of a capped queue at its cap waits here
      # for a running one to settle. It stays in the process's in-flight
      # record meanwhile, exactly like any fetched job not yet started, and
      # goes back to its queue by the same hand-back when the capsule goes
      # quiet. A fetch asks a capped queue for no more than its cap plus the
      # jobs it runs in a time slice of the global lock (the balancer's
      # `ahead`, at least AHEAD): enough that its thread never waits for a
      # fetch (the fetcher thread itself may wait a slice for the lock),
      # few enough that slow jobs are not hoarded from other processes. A
      # capped queue's job under its cap goes first to the next free thread.
      #
      #   buffer = CappedBuffer.new(requeue, queues: %w[cpu io], logger: logger)
      #   buffer.update(caps: {"cpu" => 1}, backlog: {"cpu" => 900, "io" => 300})
      #   buffer.plan([[0, 41, 20], [1, 42, 20]], 20)  # => [[0, 41, -9], [1, 42, 5]]
      #   buffer.push_lots(lots); unit = buffer.pop      # in a processor
      #   buffer.settled(unit)                           # its outcome is settled
      class CappedBuffer
        AHEAD = 2

        def initialize(requeue, queues:, logger:)
          @requeue = requeue
          @logger = logger
          @queues = queues
          @index = queues.each_with_index.to_h
          @lock = Mutex.new
          @cond = ConditionVariable.new
          @units = []
          @caps = Array.new(queues.size)
          @ahead = Array.new(queues.size, AHEAD)
          @backlog = nil
          @buffered = Array.new(queues.size, 0)
          @outstanding = Array.new(queues.size, 0)
          @running = Array.new(queues.size, 0)
          @held = {}.compare_by_identity # unit => started?
          @waiting = 0
          @closed = false
          @freed = false
        end

        # caps: queue => most jobs running at once (queues absent: no cap);
        # backlog: queue => jobs waiting in Redis (nil: not known, an even
        # split); ahead: queue => jobs a capped queue may hold beyond its cap.
        def update(caps:, backlog:, ahead: {})
          @lock.synchronize do
            @caps = @queues.map { |queue| caps[Store::Layout::PartitionNames.base(queue)] }
            @ahead = @queues.map { |queue| [ahead[Store::Layout::PartitionNames.base(queue)] || AHEAD, AHEAD].max }
            @backlog = backlog && @queues.map { |queue| backlog[queue].to_i }
            @cond.broadcast
          end
        end

        # What the balancer decided, per queue: [cap or nil, running, outstanding].
        def state = @lock.synchronize { @queues.each_with_index.to_h { |q, i| [q, [@caps[i], @running[i], @outstanding[i]]] } }

        # The sources of the next fetch (Fetch::Sources#next), shares split by
        # backlog, a capped queue's share a hard limit (negative: fetch.lua
        # gives it nothing beyond) and a capped queue without room left out.
        def plan(sources, limit)
          @lock.synchronize do
            @freed = false
            shares = Shares.split(limit, sources.map { |index, _| @backlog ? @backlog[index] : 1 })
            # A queue's priority levels (`level`) are sources of their own,
            # each given the queue's room.
            sources.each_with_index.filter_map do |(index, id, _, level), j|
              share = (cap = @caps[index]) ? -(cap + @ahead[index] - @outstanding[index]) : shares[j]
              next if cap && share >= 0 # no room left
              level ? [index, id, share, level] : [index, id, share]
            end
          end
        end

        # A capped queue's job settled since the last fetch, and the queue had jobs.
        def capped_freed? = @freed

        # Indexes of the capped queues the idle waiters leave to fetches:
        # those with a backlog at the balancer's last look (a fetch takes what
        # they may hold in one go) or holding all they may already. An idle
        # one is watched, so a job pushed to it starts at once.
        def fetched_only
          @lock.synchronize do
            @caps.each_index.select do |i|
              @caps[i] && (@backlog.nil? || @backlog[i].positive? || @outstanding[i] >= @caps[i] + @ahead[i])
            end
          end
        end

        # A job an idle waiter landed.
        def push(unit) = push_units([unit])

        # Fetched lots: each job's unit is made here, since which queue's cap
        # a job counts against must be known before a processor asks.
        def push_lots(lots) = push_units(lots.flat_map { |lot| Array.new(lot.size) { lot.claim } })

        def push_units(units)
          @lock.synchronize do
            units.each do |unit|
              @units << unit
              @held[unit] = false
              @buffered[unit.lot.index] += 1
              @outstanding[unit.lot.index] += 1
            end
            units.size.times { @cond.signal }
          end
        end

        # Blocks until a job may start; nil once closed.
        def pop
          @lock.synchronize do
            loop do
              if (at = startable)
                unit = @units.delete_at(at)
                index = unit.lot.index
                @buffered[index] -= 1
                @running[index] += 1
                @held[unit] = true
                return unit
              end
              return nil if @closed
              @waiting += 1
              @cond.wait(@lock)
              @waiting -= 1
            end
          end
        end

        # The unit left the process's hands (its outcome settled, or handed back).
        def settled(unit)
          @lock.synchronize do
            started = @held.delete(unit)
            next if started.nil? # settled before
            index = unit.lot.index
            @outstanding[index] -= 1
            next unless started
            @running[index] -= 1
            next unless @caps[index]
            # No signal: the processor that settled the job asks #pop for its
            # next one at once and starts the capped job itself; waking
            # another thread for it would trade the lock back and forth at
            # every job. A fetch refills the queue once half of what it may
            # hold ahead is gone, not at every job.
            @freed = true if (@backlog.nil? || @backlog[index].positive?) && @buffered[index] <= @ahead[index] / 2
          end
        end

        # Jobs a processor could start now: a capped queue's beyond its cap wait.
        def size
          @lock.synchronize do
            @buffered.each_with_index.sum { |n, i| (cap = @caps[i]) ? n.clamp(0, [cap - @running[i], 0].max) : n }
          end
        end

        def empty? = size.zero?

        # Jobs waiting past their queue's cap: the fetch asks for as many more
        # (Fetch::Planner), so they never take threads from other queues.
        def held = @lock.synchronize { @units.size } - size

        # Threads waiting in #pop: processors that ran dry.
        attr_reader :waiting

        def close
          @lock.synchronize do
            @closed = true
            @cond.broadcast
          end
        end

        # As Fetch::Buffer#hand_back: every job still here, held ones too,
        # back to the front of its queue, then yielded to be counted settled.
        def hand_back(&)
          units = @lock.synchronize do
            @units.slice!(0..).each { |unit| @buffered[unit.lot.index] -= 1 }
          end
          Fetch::HandBack.call(@requeue, @logger, units, &)
        end

        private

        # A capped queue's job under its cap first: it has few threads, and
        # waiting behind a stream of other jobs would leave it fewer still.
        def startable
          return nil if @units.empty?
          return 0 if @caps.none?
          due = @caps.each_index.select { |i| (cap = @caps[i]) && @buffered[i].positive? && @running[i] < cap }
          return @units.index { |unit| due.include?(unit.lot.index) } unless due.empty?
          @units.index { |unit| @caps[unit.lot.index].nil? }
        end
      end
    end
  end
end
