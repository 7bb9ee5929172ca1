# frozen_string_literal: true

require_relative "cluster_helpers"
require "deckhand/batch"

module Deckhand
  # For batch tests in cluster mode (include after ClusterHelpers): batches
  # installed, their jobs written straight to Redis even where an earlier test
  # loaded Deckhand::Testing's pusher, and the process's memory of callbacks it
  # could not push (Store::Features::BatchOutbox) empty.
  module ClusterBatchHelpers
    # A caller that dies right after the batch step: the callbacks it fired
    # stay in the outbox, never pushed.
    class CrashBeforePush < Store::Scripts::BatchOps
      def deliver(_others, _own) = nil
    end

    def setup
      super
      Deckhand::Batch.install(Deckhand.config)
      @pusher = Deckhand::Client.pusher
      Deckhand::Client.pusher = nil
      outbox = Deckhand::Store::Features::BatchOutbox
      outbox::LOCK.synchronize { [outbox::DOUBTS, outbox::UNPUSHED].each(&:clear) }
    end

    def teardown
      Deckhand::Client.pusher = @pusher
      super
    end

    def tracker = Deckhand::Batch::Tracker.new(Deckhand.config)
  end
end
