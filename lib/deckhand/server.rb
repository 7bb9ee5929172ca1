# frozen_string_literal: true

require "json"
require_relative "../deckhand"

module Deckhand
  # The processing side: Launcher, capsules of processors fed by fetchers,
  # the scheduler, the reaper and the heartbeat. Loaded by the CLI, never by
  # the client. Internal as a whole: applications run a server through the
  # command (`deckhand`), Deckhand.embed or the swarm, and reach its
  # behaviour through the configuration.
  module Server # :nodoc: all
  end
end

require_relative "store/inflight/lot_bits"
require_relative "store/inflight"
require_relative "store/jobs/morgue"
require_relative "store/jobs/queues"
require_relative "store/records/execution_metrics"
require_relative "store/records/process_record"
require_relative "store/inflight/owners"
require_relative "store/connection/clients"
require_relative "store/inflight/poison"
require_relative "store/inflight/recoveries"
require_relative "store/records/heartbeats"
require_relative "store/records/queue_samples"
require_relative "store/records/error_metrics"
require_relative "store/features/throttles"
require_relative "store/connection/redis_memory"
require_relative "store/connection/memory_concerns"
require_relative "store/scripts/fetch/fetch"
require_relative "store/scripts/fetch/fetch_by_queue"
require_relative "store/scripts/fetch/settle"
require_relative "store/scripts/fetch/requeue"
require_relative "store/scripts/fetch/recover"
require_relative "store/scripts/sets/schedule"
require_relative "store/scripts/sets/schedule_given"
require_relative "server/identity"
require_relative "server/resident_memory"
require_relative "server/chores/activity"
require_relative "server/fetch/sequence"
require_relative "sleeper"
require_relative "server/outage"
require_relative "component"
require_relative "server/recovery/suspects"
require_relative "server/fetch/throttle_limits"
require_relative "server/capsule_pool"
require_relative "server/balance/balancer"
require_relative "server/chores/scheduler"
require_relative "server/chores/eviction_watch"
require_relative "server/chores/heartbeat"
require_relative "server/chores/queue_sampler"
require_relative "server/recovery/reaper"
require_relative "server/chores/periodic_loop"
require_relative "server/chores/batch_outbox_drain"
require_relative "server/chores/workflow_outbox_drain"
require_relative "server/chores/retired_sweeper"
require_relative "server/jruby_advice"
require_relative "server/launcher"
require_relative "operations"
require_relative "periodic/tick_outcomes"
