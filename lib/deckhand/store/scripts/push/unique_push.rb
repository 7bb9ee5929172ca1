# frozen_string_literal: true

require_relative "../../jobs/fair_pushes"

module Deckhand
  class Store
    module Scripts
      # unique_push.lua: pushes jobs of one queue, each with its unique lock
      # (Deckhand::Unique), in one round trip; a job whose lock is held by
      # another is not pushed. With push_replicas set it WAITs for the
      # replicas (Script#run_durably) and raises NotReplicated naming the
      # jobs it pushed.
      #
      #   UniquePush.new(store).call("default", [[lock, nil, json]])   # => [nil]       (pushed)
      #   UniquePush.new(store).call("default", [[lock, nil, json]])   # => ["b4a5..."] (the holder)
      #
      # In cluster mode the script touches the queue's slot only (its list,
      # its scheduled set, the locks, all tagged {queue:<name>}); the queue
      # is registered in the set of queue names ({deckhand} slot) by a
      # command of its own first, for scheduled pushes too: the scheduler
      # finds a queue's scheduled set through that registration.
      class UniquePush < Script # :nodoc:
        lua "push/unique_push", uses: ["guard", "fair", "push"]

        # jobs: [Unique::Lock, scheduled time (epoch seconds) or nil, payload].
        # Returns, per job, nil when pushed or the jid that holds its lock.
        # fair (a Config::FairQueues): a job pushed now that names a tenant
        # of a fair queue goes into its tenant's turn (docs/fair-queues.md).
        def call(queue, jobs, fair: nil)
          list = push_keys(queue)
          tenants = jobs.map { |_, at, payload| Jobs::FairPushes.tenant_of(payload) if !at && fair&.fair?(queue) && payload.include?(Jobs::FairPushes::MARK) }
          argv = [queue, tenants.any? ? "1" : "0"]
          jobs.each_with_index do |(lock, at, payload), i|
            list << lock.key
            argv.push(lock.jid, lock.ttl_ms, at ? at.round(3).to_s : "", payload, tenants[i] || "", tenants[i] ? fair.step(queue, tenants[i]).to_s : "")
          end
          list.push(keys.fair_jobs(queue), keys.fair_tenants(queue)) if tenants.any?
          holders = run_durably(list, argv) { |reply| pushed_jids(jobs, reply) }
          holders.map { |holder| (holder.nil? || holder.empty?) ? nil : holder }
        end

        private

        # The jids of the jobs the script pushed ("" where it took the lock).
        def pushed_jids(jobs, holders) = jobs.each_with_index.filter_map { |(lock, _, _), i| lock.jid if holders[i].to_s.empty? }
      end
    end
  end
end
