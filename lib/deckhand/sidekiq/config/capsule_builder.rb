# frozen_string_literal: true

module Deckhand
  module DropIn
    # What `config.capsule("name") { |cap| ... }` yields: the capsule's
    # concurrency and queues, which become a Deckhand capsule.
    #
    #   config.capsule("single") { |cap| cap.concurrency = 1; cap.queues = %w[single] }
    class CapsuleBuilder
      attr_reader :name, :queues
      attr_accessor :concurrency

      def initialize(name)
        @name = name.to_s
        @concurrency = 5
        @queues = ["default"]
      end

      def queues=(list)
        @queues = Array(list).map { |entry| entry.is_a?(Array) ? entry.join(",") : entry.to_s }
      end
    end
  end
end
