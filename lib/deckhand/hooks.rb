# frozen_string_literal: true

module Deckhand
  # Deckhand's one way to run code when something happens: named lists of
  # blocks, run in the order they were added. Config::Events (a server's
  # events, per configuration) and Lifecycle (this process's leadership) keep
  # their blocks in one. A run calls a snapshot of the list, so a block added
  # or removed meanwhile (from another thread) never upsets it; #freeze ends
  # all changes.
  #
  #   hooks = Hooks.new(%i[startup shutdown])
  #   hooks.add(:startup, -> { Metrics.connect })
  #   hooks.run(:startup) { |error| logger.error(error.message) }   # the block gets each handler's error
  class Hooks
    EMPTY = [].freeze

    attr_reader :names

    def initialize(names)
      @names = names.dup.freeze
      @lists = {}
      @lock = Mutex.new
    end

    def known?(name) = @names.include?(name)

    # Adds a block for `name`; returns it (to pass to #remove).
    def add(name, block)
      raise ArgumentError, "unknown event #{name.inspect}; known: #{@names.map(&:inspect).join(", ")}" unless known?(name)
      raise ArgumentError, "give a block to run on #{name.inspect}" unless block
      @lock.synchronize { live(name) << block }
      block
    end

    def remove(name, block) = @lock.synchronize { live(name).delete(block) }

    # The blocks of `name`, in order: the list itself until #freeze (Sidekiq's
    # `config[:lifecycle_events][:startup] << block` adds to it), frozen after.
    def list(name)
      return @lists.fetch(name, EMPTY) if frozen?
      @lock.synchronize { live(name) }
    end

    # Calls each block of `name` with `args`. A block that raises does not
    # stop the others: its error goes to the given block, which may log it
    # or raise it (and so stop the run).
    def run(name, *args)
      handlers = frozen? ? @lists.fetch(name, EMPTY) : @lock.synchronize { @lists.fetch(name, EMPTY).dup }
      handlers.each do |handler|
        handler.call(*args)
      rescue AppError => e # a NotImplementedError too: the caller decides, not the block's class
        raise unless block_given?
        yield e
      end
    end

    def freeze
      @lock.synchronize do
        @lists.each_value(&:freeze)
        @lists.freeze
      end
      super
    end

    private

    def live(name) = @lists[name] ||= []
  end
end
