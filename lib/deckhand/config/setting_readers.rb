# frozen_string_literal: true

module Deckhand
  class Config
    # What each setting of Config::SETTINGS reads back. Every one has a
    # writer of the same name (`config.concurrency = 20`) that checks the
    # value where it is set and raises ConfigError naming it, and refuses a
    # change once a server booted; the README's "Configuration" table and the
    # guides say more of each.
    #
    #   config = Deckhand::Config.new(concurrency: 20)
    #   config.concurrency   # => 20
    #   config.max_retries   # => 25, the default
    #
    # (`timestamps` and `periodic` read differently: see Config#timestamps
    # and Config#periodic.)
    module SettingReaders
      # @return [Hash] redis-client's options for the connection (`url:`, `ssl_params:`, `sentinels:`...); {} reads REDIS_URL
      attr_reader :redis
      # @return [Integer] threads in the default capsule (10)
      attr_reader :concurrency
      # @return [Array<String>] the default capsule's queues, "name" or "name,weight" (["default"])
      attr_reader :queues
      # @return [Numeric] seconds a stopping server waits for running jobs before handing them back (25)
      attr_reader :timeout
      # @return [Integer] retries of a job with `retry: true` (25)
      attr_reader :max_retries
      # @return [Integer] jobs the dead set keeps at most (10,000)
      attr_reader :dead_max_jobs
      # @return [Numeric] seconds a dead job is kept (180 days)
      attr_reader :dead_timeout
      # @return [Integer] bytes of a job's JSON past which a push is refused (1 MiB)
      attr_reader :max_payload_bytes
      # @return [Integer] backtrace lines a failed job keeps, unless the job says otherwise (25)
      attr_reader :backtrace_lines
      # @return [Numeric] seconds between a process's heartbeats (2)
      attr_reader :heartbeat_interval
      # @return [Integer] seconds a process record lives without a heartbeat (40)
      attr_reader :heartbeat_ttl
      # @return [Numeric] seconds between two looks for dead processes whose jobs to take back (2)
      attr_reader :reaper_interval
      # @return [Numeric] seconds of silence after which a process is taken for dead, its connections open or not (300)
      attr_reader :hung_after
      # @return [Numeric] seconds a cancelled running job has to stop by itself before it is interrupted (10)
      attr_reader :cancel_grace
      # @return [Boolean] whether pushes wait in memory, in order, while Redis cannot be reached (false)
      attr_reader :reliable_push
      # @return [Integer] pushes held in memory at most with reliable_push; past it a push raises (1,000)
      attr_reader :reliable_push_limit
      # @return [Boolean] whether a server refuses to start on a Redis whose maxmemory-policy may evict (false)
      attr_reader :refuse_evicting_redis
      # @return [Numeric] seconds between two checks of Redis' eviction policy (30)
      attr_reader :eviction_check_interval
      # @return [Integer] crashes a job may cause before it is quarantined as a poison pill (3)
      attr_reader :max_recoveries
      # @return [Numeric] seconds between a process's polls of the schedule and retry sets, scaled by the processes (2.0)
      attr_reader :scheduler_interval
      # @return [Numeric, nil] each process's average seconds between polls, whatever their number (nil)
      attr_reader :scheduler_poll_average
      # @return [Numeric] jobs fetched ahead of free threads, as a multiple of the threads (0.0)
      attr_reader :prefetch
      # @return [Numeric] seconds of work a capsule fetches ahead within one round trip (0.01)
      attr_reader :fetch_window
      # @return [String] a name shown beside the process in the dashboard ("")
      attr_reader :tag
      # @return [Array<String>] labels shown beside the process in the dashboard ([])
      attr_reader :labels
      # @return [String] the application's environment (APP_ENV, RAILS_ENV, RACK_ENV, or "development")
      attr_reader :environment
      # @return [Integer, String, nil] the port (or "host:port") of the process's Prometheus /metrics (off)
      attr_reader :metrics_port
      # @return [String, nil] the address of the process's /live and /ready probes (off)
      attr_reader :health_check
      # @return [Config::Statsd, nil] where StatsD events go (off)
      attr_reader :statsd
      # @return [Config::Throttle] per-queue limits across the fleet ({}: none)
      attr_reader :throttle
      # @return [Config::Partitions] queues spread over several lists ({}: none)
      attr_reader :partitions
      # @return [Config::FairQueues] queues shared fairly between tenants ({}: none)
      attr_reader :fair_queues
      # @return [Integer] replicas a push waits for (0: none)
      attr_reader :push_replicas
      # @return [Numeric] seconds a push waits for its replicas (1.0)
      attr_reader :push_replicas_timeout
      # @return [Boolean] whether the default capsule's threads follow the backlog over its queues (false)
      attr_reader :auto_balance
      # @return [Numeric, nil] seconds an iterable job runs before it stops and resumes later (nil: no limit)
      attr_reader :max_iteration_runtime
      # @return [Boolean] whether death handlers also run for a job its retries_exhausted discarded (false)
      attr_reader :death_handlers_on_discard
    end
  end
end
