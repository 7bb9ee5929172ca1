# frozen_string_literal: true

require "json"
require_relative "../scripts/push/fair_push"

module Deckhand
  class Store
    module Jobs
      # The pushes of a fair queue's jobs that name a tenant ("tenant" in the
      # payload, from `set(tenant:)` or the queue's `by:`): they wait in its
      # tenants' jobs, scored for their tenant's fair share
      # (store/scripts/lib/fair.lua), instead of at the back of the queue.
      #
      #   queued, fair = FairPushes.split({"reports" => [json, ...]}, config.fair_queues)
      #   FairPushes.push(store, fair)
      module FairPushes # :nodoc:
        # Only a payload holding this may name a tenant: the others skip the parse.
        MARK = "\"tenant\":"
        NO_TENANTS = {}.freeze

        module_function

        # Splits queued (queue => [json, ...]) into the payloads without a
        # tenant (same queues, lists without those that have one) and queue =>
        # [[tenant, step, json], ...] for FairPush. `fair` (a
        # Config::FairQueues, or nil: no queue is fair) says which queues take
        # fair shares and gives the weights.
        def split(queued, fair)
          return [queued, NO_TENANTS] unless any?(fair)
          tenants = nil
          plain = queued.to_h do |queue, payloads|
            next [queue, payloads] unless fair.fair?(queue) && payloads.any? { |json| json.include?(MARK) }
            kept = []
            payloads.each do |json|
              tenant = tenant_of(json)
              next kept << json unless tenant
              ((tenants ||= {})[queue] ||= []) << [tenant, fair.step(queue, tenant), json]
            end
            [queue, kept]
          end
          [plain, tenants || {}]
        end

        # Whether some queue is fair: a plain push asks first and skips #split's pair.
        def any?(fair) = !(fair.nil? || fair.none?)

        def push(store, fair)
          fair.each { |queue, jobs| Scripts::FairPush.new(store).call(queue, jobs) }
        end

        # Pushes the tenants' jobs, then yields for the rest (Store::Jobs::Queues.push,
        # which waits for the replicas itself when push_replicas is set): one
        # NotReplicated names the jobs of both parts.
        def pushing(store, tenants)
          return yield if tenants.empty?
          short = begin
            push(store, tenants)
            nil
          rescue NotReplicated => e
            e
          end
          begin
            yield
          rescue NotReplicated => e
            raise e unless short
            raise NotReplicated.new(e.message, acknowledged: e.acknowledged, wanted: e.wanted, jids: short.jids + e.jids)
          end
          raise short if short
        end

        def jid_of(json)
          job = JSON.parse(json)
          job["jid"] if job.is_a?(Hash)
        end

        def tenant_of(json)
          job = JSON.parse(json)
          tenant = job["tenant"] if job.is_a?(Hash)
          tenant&.to_s
        end
      end
    end
  end
end
