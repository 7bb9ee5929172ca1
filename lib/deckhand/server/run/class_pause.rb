# frozen_string_literal: true

require "set"

module Deckhand
  module Server
    module Run
      # The job classes paused across the fleet (Store::Jobs::HeldClasses),
      # as this process last read them with its heartbeat: its processors
      # hold a fetched job of one (Run::ClassHold) instead of running it.
      # A class the process sees resumed is remembered until the heartbeat
      # moved the jobs it may have held meanwhile back to its queues
      # (#releasing): a job held after the resume, while the process still
      # believed the class paused, is never left behind.
      #
      #   pause = ClassPause.new
      #   pause.update(["ReportJob"])
      #   pause.paused?("ReportJob")                       # => true
      #   pause.update([])
      #   pause.releasing { |name| release(name) }         # yields "ReportJob" until a call returns
      class ClassPause # :nodoc:
        def initialize
          @lock = Mutex.new
          @paused = Set.new.freeze
          @resumed = []
        end

        # The names read from Redis; those gone from the last read wait in #releasing.
        def update(names)
          names = Set.new(names).freeze
          @lock.synchronize do
            @resumed |= (@paused - names).to_a
            @resumed -= names.to_a # paused again before its release: it stays held
            @paused = names
          end
        end

        # Read without the lock: #update swaps in a frozen Set whole.
        def paused?(name) = !@paused.empty? && @paused.include?(name)

        # Yields each resumed class whose held jobs are not moved back yet; a
        # name leaves the list once the block returned (not when it raised).
        def releasing
          @lock.synchronize { @resumed.dup }.each do |name|
            yield name
            @lock.synchronize { @resumed.delete(name) }
          end
        end
      end
    end
  end
end
