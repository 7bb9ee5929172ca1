# frozen_string_literal: true

module Deckhand
  module Testing
    # The jobs collected in fake mode, oldest first, as decoded job Hashes (what
    # a server would see: args after a trip through JSON, "queue", "jid",
    # "enqueued_at", or "at" for a scheduled job). Safe to use from many
    # threads: every read returns a snapshot.
    #
    #   queues = Deckhand::Testing.queues
    #   queues.for("WelcomeEmailJob")     # => [{"class" => "WelcomeEmailJob", "args" => [42], ...}]
    #   queues.shift("WelcomeEmailJob")   # the oldest, removed
    class FakeQueues
      def initialize
        @lock = Mutex.new
        @entries = [] # [sequence, job]
        @sequence = 0
      end

      def add(job)
        @lock.synchronize { @entries << [@sequence += 1, job] }
        job
      end

      # Every job of the class (a Class or its name), or every job.
      def for(klass = nil) = select(klass).map(&:last)

      def all = self.for

      def size(klass = nil) = select(klass).size

      # Removes and returns the oldest job of the class (or of any class).
      def shift(klass = nil)
        name = klass&.to_s
        @lock.synchronize do
          index = name ? @entries.index { |_, job| job["class"] == name } : 0
          index && @entries.delete_at(index)&.last
        end
      end

      # Removes the class's jobs, or all of them.
      def clear(klass = nil)
        name = klass&.to_s
        @lock.synchronize { name ? @entries.reject! { |_, job| job["class"] == name } : @entries.clear }
        nil
      end

      # A point in time: #since(mark) lists the jobs added after it.
      def mark = @lock.synchronize { @sequence }

      def since(mark, klass = nil) = select(klass).select { |seq, _| seq > mark }.map(&:last)

      private

      def select(klass)
        name = klass&.to_s
        entries = @lock.synchronize { @entries.dup }
        name ? entries.select { |_, job| job["class"] == name } : entries
      end
    end
  end
end
