# frozen_string_literal: true

module Deckhand
  module Middleware
    # An ordered list of middleware classes. Each job gets fresh instances, so a
    # middleware may keep per-job state in instance variables.
    #
    #   class Timing
    #     def call(job, payload, queue)
    #       started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    #       yield
    #     ensure
    #       Stats.timing(payload["class"], Process.clock_gettime(Process::CLOCK_MONOTONIC) - started)
    #     end
    #   end
    #   config.server_middleware.add(Timing)
    #
    # Server middleware is called as call(job_instance, payload, queue) { ... };
    # client middleware as call(job_class_name, payload, queue, store) { ... } and
    # may return false (or not yield) to stop the push.
    class Chain
      Entry = Struct.new(:klass, :args, :kwargs) do
        # Run for every job: no splat or empty keywords Hash to allocate for
        # the usual middleware, built with one argument or none.
        def build
          return klass.new(*args, **kwargs) unless kwargs.empty?
          case args.size
          when 0 then klass.new
          when 1 then klass.new(args[0])
          else klass.new(*args)
          end
        end
      end
      private_constant :Entry

      def initialize
        @entries = []
      end

      # A copy has a list of its own: changing it leaves the original alone.
      def initialize_copy(other)
        super
        @entries = @entries.dup
      end

      def add(klass, *args, **kwargs)
        remove(klass)
        @entries << Entry.new(klass, args, kwargs)
        self
      end

      def prepend(klass, *args, **kwargs)
        remove(klass)
        @entries.unshift(Entry.new(klass, args, kwargs))
        self
      end

      def remove(klass)
        @entries.reject! { |e| e.klass == klass }
        self
      end

      # Puts `klass` just before `existing` (first when `existing` is absent),
      # or just after it (last when absent); moves it if it was there already.
      def insert_before(existing, klass, *args, **kwargs)
        entry = take(klass) || Entry.new(klass, args, kwargs)
        @entries.insert(@entries.index { |e| e.klass == existing } || 0, entry)
        self
      end

      def insert_after(existing, klass, *args, **kwargs)
        entry = take(klass) || Entry.new(klass, args, kwargs)
        index = @entries.index { |e| e.klass == existing } || (@entries.size - 1)
        @entries.insert(index + 1, entry)
        self
      end

      def clear
        @entries.clear
        self
      end

      # The entries in calling order (each with klass, args and kwargs).
      attr_reader :entries

      def include?(klass) = @entries.any? { |e| e.klass == klass }

      # Whether every middleware only yields for this job, as its class
      # says (`deckhand_passes?(payload)`, Deckhand's own middleware): then
      # a job, or a chunk's member, runs without its chain being built.
      def passes?(payload) = @entries.all? { |e| e.klass.respond_to?(:deckhand_passes?) && e.klass.deckhand_passes?(payload) } # :nodoc:

      def empty? = @entries.empty?

      def size = @entries.size

      def freeze
        @entries.freeze
        super
      end

      # Runs the block inside every middleware, outermost first. Returns the
      # block's value, or nil when a middleware did not yield.
      def invoke(*args, &block)
        return yield if @entries.empty?
        run(@entries.map(&:build), 0, args, &block)
      end

      private

      def take(klass)
        index = @entries.index { |e| e.klass == klass }
        index && @entries.delete_at(index)
      end

      def run(instances, index, args, &block)
        return yield if index == instances.size
        result = nil
        instances[index].call(*args) { result = run(instances, index + 1, args, &block) }
        result
      end
    end
  end
end
