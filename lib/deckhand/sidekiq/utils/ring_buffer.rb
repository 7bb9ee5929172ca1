# frozen_string_literal: true

module Sidekiq
  # A fixed number of slots written round and round (Sidekiq 8's utility
  # for recent samples): once full, each push replaces the oldest.
  #
  #   buffer = Sidekiq::RingBuffer.new(3)
  #   4.times { |i| buffer << i + 1 }
  #   buffer.buffer   # => [4, 2, 3]
  #   buffer.sum      # => 9
  class RingBuffer
    include Enumerable

    def initialize(size, default = 0)
      @size = size
      @slots = Array.new(size, default)
      @writes = 0
    end

    def <<(element)
      @slots[@writes % @size] = element
      @writes += 1
      element
    end

    def [](index) = @slots[index]

    def each(&) = @slots.each(&)

    def size = @slots.size

    def buffer = @slots

    def reset(default = 0) = @slots.fill(default)
  end
end
