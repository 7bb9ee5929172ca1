# frozen_string_literal: true

require_relative "../../monotonic"
require_relative "hand_back"

module Deckhand
  module Server
    module Fetch
      # The jobs one capsule fetched and has not started: processors take
      # from it, the fetch loop fills it, and when the capsule goes quiet what
      # is left goes back to the front of its queues for other processes to
      # run (store/scripts/fetch/requeue.lua, each job marked settled in its lot or
      # taken out of its landing list in the same step).
      #
      # A fetched lot waits here as itself, once a job, and its payloads wait
      # in the lot: a job's UnitOfWork is made when a processor takes it, so
      # the objects of a job are young when it runs (see Lot). With weighted
      # queues (interleave: true) the lots of one fetch are dealt out mixed,
      # each next job drawn from a lot in proportion to the jobs it has left,
      # so a batch split 3 to 1 by weight also runs about 3 to 1 all along,
      # as jobs picked one at a time by weight would; strict queues keep
      # their order.
      #
      #   buffer = Buffer.new(requeue, logger: logger)
      #   buffer.push_lots(lots)                        # fetched
      #   buffer.push(unit)                             # landed by an idle waiter
      #   buffer.pop                                    # => a UnitOfWork, or nil once closed
      #   buffer.pop_now                                # => a UnitOfWork waiting now, or nil
      #   buffer.hand_back { |unit| fetcher.done(unit, marked: true) }
      class Buffer
        POLL = 0.002
        def initialize(requeue, logger:, interleave: false, random: Random.new)
          @requeue = requeue
          @logger = logger
          @interleave = interleave
          @random = random
          @ready = Thread::Queue.new
          @claims = Mutex.new
        end

        def push(unit) = @ready << unit

        def push_lots(lots)
          return lots.each { |lot| lot.size.times { @ready << lot } } unless @interleave && lots.size > 1
          left = lots.map(&:size)
          left.sum.downto(1) do |remaining|
            point = @random.rand(remaining)
            i = left.index { |n| (point -= n).negative? }
            left[i] -= 1
            @ready << lots[i]
          end
        end

        # Blocks until a job is there (for up to `timeout` seconds when
        # given); nil once the buffer is closed, or the time is up. Ruby
        # 3.1's Thread::Queue has no timed pop: a timed one looks every
        # POLL seconds (only a chunk gathering its members waits so).
        def pop(timeout: nil)
          return unit(@ready.pop) unless timeout
          deadline = Monotonic.now + timeout
          begin
            unit(@ready.pop(true))
          rescue ThreadError # empty
            return nil if @ready.closed? || Monotonic.now >= deadline
            sleep POLL
            retry
          end
        end

        # The next job when one waits now, else nil: never waits.
        def pop_now
          @ready.empty? ? nil : unit(@ready.pop(true))
        rescue ThreadError # another thread took it meanwhile
          nil
        end

        def size = @ready.size

        # Jobs waiting past their queue's cap: none here (Balance::CappedBuffer).
        def held = 0

        def empty? = @ready.empty?

        # Threads waiting in #pop: processors that ran dry.
        def waiting = @ready.num_waiting

        def closed? = @ready.closed?

        # Releases the processors waiting in #pop: each gets nil.
        def close = @ready.close

        # Hands back every job still waiting (Fetch::HandBack), then yields
        # each to be counted settled.
        def hand_back(&) = HandBack.call(@requeue, @logger, drain, &)

        private

        def drain
          units = []
          loop { units << unit(@ready.pop(true)) }
        rescue ThreadError # empty
          units
        end

        def unit(item) = item.instance_of?(Lot) ? @claims.synchronize { item.claim } : item
      end
    end
  end
end
