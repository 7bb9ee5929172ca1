# frozen_string_literal: true

module Deckhand
  module Testing
    # The jobs collected in fake mode, oldest first, as decoded job Hashes (what
    # a server would see: args after a trip through JSON, "queue", "jid",
    # "enqueued_at", or "at" for a scheduled job). Safe to push to from many
    # threads.
    #
    #   queues = Deckhand::Testing.queues
    #   queues.for("WelcomeEmailJob")     # => [{"class" => "WelcomeEmailJob", "args" => [42], ...}]
    #   queues.queue("mailers")           # the same jobs, by queue
    #   queues.shift("WelcomeEmailJob")   # the oldest, removed
    #
    # `for` and `queue` return the same Array every time, kept up to date as
    # jobs are pushed, run and cleared, so a test can hold on to it
    # (`expect { ... }.to change(WelcomeEmailJob.jobs, :size).by(1)`), and
    # emptying it (`WelcomeEmailJob.jobs.clear`) forgets those jobs.
    class FakeQueues
      def initialize
        @lock = Mutex.new
        @by_class = Hash.new { |hash, name| hash[name] = [] }
        @by_queue = Hash.new { |hash, name| hash[name] = [] }
        @order = {}.compare_by_identity # job => when it was pushed
        @sequence = 0
      end

      # Collects one pushed job.
      def add(job)
        @lock.synchronize do
          @order[job] = (@sequence += 1)
          @by_class[job["class"]] << job
          @by_queue[job["queue"]] << job
        end
        job
      end

      # The live Array of the class's jobs (a Class or its name), or a new
      # Array of every job.
      def for(klass = nil)
        return all unless klass
        @lock.synchronize { @by_class[klass.to_s] }
      end

      # The live Array of the jobs pushed to a queue.
      def queue(name) = @lock.synchronize { @by_queue[name.to_s] }

      # Every collected job, oldest first (a new Array).
      def all = @lock.synchronize { sorted }

      # The live Arrays, by class name and by queue name (new Hashes).
      def by_class = @lock.synchronize { @by_class.reject { |_, jobs| jobs.empty? } }

      # queue name => the jobs collected for it, leaving out the empty ones.
      def by_queue = @lock.synchronize { @by_queue.reject { |_, jobs| jobs.empty? } }

      # Jobs collected, of `klass` or of every class.
      def size(klass = nil) = klass ? self.for(klass).size : all.size

      # Removes and returns the oldest job of the class (or of any class).
      def shift(klass = nil)
        @lock.synchronize do
          job = klass ? @by_class[klass.to_s].first : oldest
          forget(job) if job
          job
        end
      end

      # Removes the class's jobs, or all of them.
      def clear(klass = nil)
        @lock.synchronize do
          if klass
            @by_class[klass.to_s].dup.each { |job| forget(job) }
          else
            [@by_class, @by_queue, @order].each(&:clear)
          end
        end
        nil
      end

      # Removes one job (the very Hash collected).
      def remove(job)
        @lock.synchronize { forget(job) }
        nil
      end

      # A point in time: #since(mark) lists the jobs added after it.
      def mark = @lock.synchronize { @sequence }

      # The jobs (of `klass`, or all) collected after `mark` (#mark).
      def since(mark, klass = nil) = self.for(klass).select { |job| @order.fetch(job, Float::INFINITY) > mark }

      private

      # The jobs the class lists hold (a test may have emptied one), by age;
      # a job a test put in a list itself counts as the newest.
      def sorted = @by_class.values.flatten.sort_by { |job| @order.fetch(job, Float::INFINITY) }

      # Each class's list is in push order, so the oldest job is one of their
      # first ones (a drain of many jobs must not sort them all each time).
      def oldest = @by_class.each_value.filter_map(&:first).min_by { |job| @order.fetch(job, Float::INFINITY) }

      def forget(job)
        @order.delete(job)
        [@by_class[job["class"]], @by_queue[job["queue"]]].each do |list|
          index = list.index { |entry| entry.equal?(job) }
          list.delete_at(index) if index
        end
      end
    end
  end
end
