# frozen_string_literal: true

module Deckhand
  module Server
    module Fetch
      # A chunk still gathering its members (Fetch::Gather keeps one a class
      # per capsule): the slots it has left, and the jobs other threads of
      # the capsule handed it. A thread that takes a job of a class whose
      # chunk is gathering gives it to that chunk rather than start one of
      # its own, so a backlog runs in full chunks one after another instead
      # of being dealt among every thread into chunks that each wait out
      # their `wait` short of `size`. Not thread-safe: Gather locks it.
      #
      #   open = OpenChunk.new(2)  # a chunk of 3: its first member and 2 slots
      #   open.claim               # => true: the gathering thread's own next job
      #   open.add([unit, job])    # => true: another thread's job joined it
      #   open.add([unit2, job2])  # => false: full
      #   open.take                # => [[unit, job]], the jobs joined since the last take
      #   open.close               # => [] : no more joins; the last joined
      class OpenChunk
        attr_reader :left

        def initialize(left)
          @left = left
          @joined = []
          @open = true
        end

        # A slot for one more member; false when full or closed.
        def claim
          return false unless @open && @left.positive?
          @left -= 1
          true
        end

        def add(pair) = claim && @joined << pair && true

        def joined? = !@joined.empty?

        def take
          joined = @joined
          @joined = []
          joined
        end

        def close
          @open = false
          take
        end
      end
    end
  end
end
