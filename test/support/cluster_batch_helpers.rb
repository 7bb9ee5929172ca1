# frozen_string_literal: true

require_relative "cluster_helpers"

module Deckhand
  # For batch tests in cluster mode (include after ClusterHelpers): batches
  # installed, their jobs written straight to Redis even where an earlier test
  # loaded Deckhand::Testing's pusher, and the process's memory of callbacks it
  # could not push (Store::BatchOutbox) empty.
  module ClusterBatchHelpers
    def setup
      super
      Deckhand::Batch.install(Deckhand.config)
      @pusher = Deckhand::Client.pusher
      Deckhand::Client.pusher = nil
      outbox = Deckhand::Store::BatchOutbox
      outbox::LOCK.synchronize { [outbox::DOUBTS, outbox::UNPUSHED].each(&:clear) }
    end

    def teardown
      Deckhand::Client.pusher = @pusher
      super
    end

    def tracker = Deckhand::Batch::Tracker.new(Deckhand.config)
  end
end
