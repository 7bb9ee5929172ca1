# frozen_string_literal: true

module Deckhand
  # A job that counts how many of its kind run at once and holds its thread
  # until the test lets one go (`ThrottleProbe::GATE << :go`), so a test
  # sees a throttle's cap reached and never passed.
  #
  #   ThrottleProbe.reset
  #   wait_for { ThrottleProbe.running == 4 }
  #   ThrottleProbe.most   # => 4
  class ThrottleProbe
    include Deckhand::Job

    GATE = Queue.new
    @lock = Mutex.new

    class << self
      attr_reader :running, :most

      def reset
        GATE.clear
        @lock.synchronize { @running = @most = 0 }
      end

      def enter = @lock.synchronize { @most = [@most, @running += 1].max }

      def leave = @lock.synchronize { @running -= 1 }
    end

    def perform(index)
      self.class.enter
      begin
        GATE.pop
      ensure
        self.class.leave
      end
      TestJobs.record([jid, index]) # after leaving: a run recorded is a slot given up
    end
  end
end
