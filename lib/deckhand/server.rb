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

require_relative "store/lot_bits"
require_relative "store/inflight"
require_relative "store/morgue"
require_relative "store/queues"
require_relative "store/execution_metrics"
require_relative "store/process_record"
require_relative "store/owners"
require_relative "store/clients"
require_relative "store/poison"
require_relative "store/recoveries"
require_relative "store/heartbeats"
require_relative "store/throttles"
require_relative "store/redis_memory"
require_relative "store/memory_concerns"
require_relative "store/scripts/fetch"
require_relative "store/scripts/fetch_by_queue"
require_relative "store/scripts/settle"
require_relative "store/scripts/requeue"
require_relative "store/scripts/recover"
require_relative "store/scripts/schedule"
require_relative "server/identity"
require_relative "server/resident_memory"
require_relative "server/activity"
require_relative "server/sequence"
require_relative "sleeper"
require_relative "server/outage"
require_relative "component"
require_relative "server/suspects"
require_relative "server/throttle_limits"
require_relative "server/capsule_pool"
require_relative "server/balancer"
require_relative "server/scheduler"
require_relative "server/eviction_watch"
require_relative "server/heartbeat"
require_relative "server/reaper"
require_relative "server/periodic_loop"
require_relative "server/batch_outbox_drain"
require_relative "server/retired_sweeper"
require_relative "server/jruby_advice"
require_relative "server/launcher"
require_relative "operations"
