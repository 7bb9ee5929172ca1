# frozen_string_literal: true

module Deckhand
  module Server
    # Returns in-flight jobs of one capsule to the front of their queues with
    # requeue.lua: the named fields, plus whatever sits in the capsule's
    # landing lists. Atomic, so a job is always in exactly one place.
    #
    #   HandBack.new(store:, inflight:, queues: ["default"], landing_keys: [...]).call(["7:default"])
    class HandBack
      def initialize(store:, inflight:, queues:, landing_keys:)
        @store = store
        @keys = [inflight, *landing_keys].freeze
        @queues = queues
      end

      # Returns how many jobs went back.
      def call(fields) = @store.script(:requeue, @keys, ["some", *@queues, *fields])
    end
  end
end
