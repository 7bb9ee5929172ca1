# frozen_string_literal: true

require_relative "../json_object"

module Deckhand
  class Store
    module Jobs
      # Reads a fair queue's tenants with jobs waiting (store/scripts/lib/fair.lua):
      # how many each has waiting and when its next job was enqueued.
      #
      #   Store::Jobs::FairTenants.top(store, "reports", 10)
      #   # => [["acme", 9_800, 1_700_000_000_000], ["globex", 12, 1_700_000_050_000]]
      module FairTenants # :nodoc:
        # How far into the tenants' jobs the next job of each tenant is looked
        # for. Every tenant's next job sits near the front (its score is at
        # most the virtual time plus its step), so this finds it unless
        # thousands of tenants wait at once; then its time is nil.
        HEAD = 2_000

        module_function

        # The `count` tenants with the most jobs waiting: [tenant, jobs,
        # enqueued_at of its next job (epoch ms or float seconds as stored),
        # or nil], deepest first.
        def top(store, queue, count)
          fields, head = store.pipelined do |pipe|
            pipe.call("HGETALL", store.layout.fair_tenants(queue))
            pipe.call("ZRANGE", store.layout.fair_jobs(queue), 0, HEAD - 1)
          end
          pairs = (fields.is_a?(Hash) || fields.first.is_a?(Array)) ? fields.to_a : fields.each_slice(2).to_a # RESP3 or RESP2
          depths = pairs.filter_map { |field, n| [field[2..], n.to_i] if field.start_with?("n:") }
          top = depths.max_by(count) { |tenant, n| [n, tenant] }
          firsts = next_jobs(head, top.map(&:first))
          top.map { |tenant, n| [tenant, n, firsts[tenant]] }
        end

        # tenant => enqueued_at of its first job among `head`, for `wanted`.
        def next_jobs(head, wanted)
          firsts = {}
          head.each do |member|
            tenant, payload = member.split("\n", 2)
            next if firsts.key?(tenant) || !wanted.include?(tenant)
            firsts[tenant] = enqueued_at(payload)
            break if firsts.size == wanted.size
          end
          firsts
        end

        def enqueued_at(payload) = JsonObject.parse(payload)&.[]("enqueued_at")
      end
    end
  end
end
