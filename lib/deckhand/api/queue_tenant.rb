# frozen_string_literal: true

require_relative "../store/jobs/fair_tenants"

module Deckhand
  class API
    # A tenant with jobs waiting in a fair queue (docs/fair-queues.md): its
    # name, how many of its jobs wait for their share, and how long its next
    # one has waited.
    #
    #   Deckhand::API.new.queue("reports").tenants(5).map { |t| [t.name, t.size, t.latency.round] }
    #   # => [["acme", 9800, 340], ["globex", 12, 2]]
    class QueueTenant
      attr_reader :name, :size

      # The `count` tenants of queue `name` with the most jobs waiting, deepest first.
      def self.top(store, name, count)
        Store::Jobs::FairTenants.top(store, name, count).map { |tenant, size, at| new(tenant, size, at) }
      end

      def initialize(name, size, enqueued_at)
        @name = name
        @size = size
        @enqueued_at = enqueued_at
      end

      # When its next job was enqueued (nil when it was not found near the front).
      def enqueued_at = Payload.to_time(@enqueued_at)

      # Seconds its next job has waited (nil when unknown).
      def latency(now = Time.now)
        at = enqueued_at or return nil
        [now.to_f - at.to_f, 0.0].max
      end
    end
  end
end
