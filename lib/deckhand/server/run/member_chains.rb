# frozen_string_literal: true

module Deckhand
  module Server
    module Run
      # Server middleware around a chunk, run for each member as for a job run
      # alone: every member's chain is entered before perform_chunk and left
      # after it, with the member's own outcome, so a batch records each
      # member's success or failure, a unique lock or a limiter sees each
      # member, and a middleware that does not yield keeps its member out of
      # the chunk (it counts as done, as a job whose middleware did not yield).
      #
      # Middleware is written as `call(job, payload, queue) { yield }`: one
      # call per member, its work on either side of the yield. So each
      # member's chain runs in a fiber of its own, which stops where the chain
      # yields and goes on once the chunk ran; the chains do not nest, however
      # large the chunk. Fibers of the processor's thread: they share its
      # interrupt mask, but a value a middleware keeps in Thread.current (a
      # fiber's own) is not seen by perform_chunk. What raises through
      # `around` (the shutdown interrupt) goes through each chain still
      # paused first, so none is left unfinished.
      #
      #   chains = MemberChains.new(middleware, instance, "default")
      #   results = chains.around(members) do |entered| # [[unit, job], ...] whose chains yielded
      #     ->(job) { nil }                             # each member's error after perform_chunk, or nil
      #   end
      #   results # => [error or nil, ...], one a member, in order
      class MemberChains
        ENTERED = :entered
        PASSED = :passed # every middleware only yields for the member (Middleware::Chain#passes?): no chain, no fiber

        def initialize(middleware, instance, queue)
          @middleware = middleware
          @instance = instance
          @queue = queue
        end

        def around(members)
          # No member needs its chain (most chunks): neither fiber nor states a member.
          if @middleware.empty? || members.all? { |_, job| @middleware.passes?(job) }
            error_of = yield(members)
            return members.map { |_, job| error_of.call(job) }
          end
          states = [] # filled as each chain is entered: a raise midway knows which are paused
          members.each { |_, job| states << enter(job) }
          entered = members.select.with_index { |_, i| states[i] == PASSED || states[i].is_a?(Fiber) }
          error_of = yield(entered)
          members.each_with_index.map { |(_, job), i| leave(states[i], error_of.call(job)) }
        rescue Exception => e # rubocop:disable Lint/RescueException -- every paused chain sees it, then it goes on
          release(states, e) if states
          raise
        end

        private

        # The member's fiber, stopped where its chain yielded; PASSED; or
        # what the chain did without yielding: nil (done, unrun) or its error.
        def enter(job)
          return PASSED if @middleware.passes?(job)
          fiber = Fiber.new(blocking: true) { through(job) }
          state = fiber.resume
          (state == ENTERED) ? fiber : shutdown?(state)
        end

        # The member's outcome once its chain returned: its error, or nil.
        def leave(state, error)
          return error if state == PASSED
          return state unless state.is_a?(Fiber)
          shutdown?(state.resume(error))
        end

        # What ended the chunk (the shutdown interrupt, or an error outside
        # perform_chunk) goes through each chain still paused at its yield,
        # as through a job run alone: its middleware's rescue and ensure run
        # once (a workflow step tells it was handed back), and no fiber is
        # left paused. A chain that already left is not entered again.
        def release(states, error)
          states.each { |state| state.resume(error) if state.is_a?(Fiber) && state.alive? }
        end

        def through(job)
          @middleware.invoke(@instance, job, @queue) do
            error = Fiber.yield(ENTERED)
            raise error if error
          end
          nil
        rescue Exception => e # rubocop:disable Lint/RescueException -- a member's failure is data, whatever its class
          e
        end

        # The shutdown interrupt landed in a member's chain: it ends the chunk.
        def shutdown?(state)
          raise state if state.is_a?(Deckhand::Shutdown)
          state
        end
      end
    end
  end
end
