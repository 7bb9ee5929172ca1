# frozen_string_literal: true

module Deckhand
  # Job class names a server runs as another class, resolved before any
  # constant lookup. Deckhand's Active Job adapter registers the wrapper
  # names Sidekiq's adapters write, so those jobs run on Deckhand's wrapper
  # without Rails autoloading Sidekiq's adapter (which activates the sidekiq
  # gem, absent from a bundle that switched to Deckhand).
  #
  #   Deckhand::ClassAliases.add("Sidekiq::ActiveJob::Wrapper", MyWrapper)
  #   Deckhand::ClassAliases["Sidekiq::ActiveJob::Wrapper"] # => MyWrapper
  module ClassAliases
    @map = {}.freeze
    @lock = Mutex.new

    class << self
      # The class that runs jobs of class `name`, or nil (look `name` up).
      def [](name) = @map[name]

      # Read on every job without a lock: the map is replaced, never changed.
      def add(name, klass)
        raise ArgumentError, "ClassAliases.add: #{klass.inspect} is not a class" unless klass.is_a?(Module)
        @lock.synchronize { @map = @map.merge(name.to_s => klass).freeze }
        klass
      end
    end
  end
end
