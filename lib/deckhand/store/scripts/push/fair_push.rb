# frozen_string_literal: true

require "json"

module Deckhand
  class Store
    module Scripts
      # fair_push.lua: pushes jobs of tenants to a fair queue, each scored
      # for its tenant's fair share (store/scripts/lib/fair.lua).
      #
      #   FairPush.new(store).call("reports", [["acme", 1.0, json], ["big", 0.333, json]]) # => 2
      class FairPush < Script # :nodoc:
        lua "push/fair_push"

        # jobs: [tenant, step (1 / the tenant's weight), payload] each.
        # Returns how many were added. With push_replicas, waits for the
        # replicas like any push (Store::Connection::Durability), or raises
        # NotReplicated naming the jobs.
        def call(queue, jobs)
          return 0 if jobs.empty?
          run_durably([keys.queue(queue), keys.fair_jobs(queue), keys.fair_tenants(queue)], jobs.flatten) do
            jobs.filter_map { |_, _, json| Jobs::FairPushes.jid_of(json) }
          end
        end
      end
    end
  end
end
