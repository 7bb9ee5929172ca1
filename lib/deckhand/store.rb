# frozen_string_literal: true

require "redis_client"
require "connection_pool"
require_relative "store/layout/plain"
require_relative "store/layout/cluster"
require_relative "store/layout/placed_cluster"
require_relative "store/layout/partition_names"
require_relative "store/layout/plain_batches"
require_relative "store/layout/cluster_batches"
require_relative "store/connection/cluster_mode"
require_relative "store/connection/translation"
require_relative "store/script"
require_relative "store/connection/dedicated"
require_relative "store/connection/durability"
require_relative "store/connection/cluster_wait"
require_relative "store/tags/queue_placement"
require_relative "store/tags/queue_move"
require_relative "store/connection/server_checks"
require_relative "store/script_runs"
require_relative "store/jobs/warning_gate"
require_relative "store/jobs/listing_warning"
require_relative "store/jobs/level_warning"
require_relative "store/records/clock"

module Deckhand
  # The one door to Redis: a connection pool, the key names and the Lua scripts.
  # Every layer above (client, server, API) talks to Redis through a Store, and
  # every error of the Redis client comes out of it as a Deckhand::RedisError
  # that names the Redis, the failing key and the fix (the original as `cause`).
  #
  #   store = Deckhand::Store.new({url: "redis://127.0.0.1:6379/0"}, size: 5)
  #   store.call("LLEN", "queue:default")           # => 12
  #   store.pipelined { |pipe| pipe.call("LLEN", "queue:a"); pipe.call("LLEN", "queue:b") }
  #   Deckhand::Store::Scripts::Schedule.new(store).call(now: Time.now.to_f)
  #
  # With `cluster:` in the options it talks to a Redis Cluster (cluster mode,
  # docs/cluster.md) and its layout is Store::Layout::Cluster's, with queues
  # placed evenly over the primaries (Store::Layout::PlacedCluster):
  #
  #   Deckhand::Store.new({cluster: ["redis://10.0.0.1:7000", "redis://10.0.0.2:7000"]})
  class Store
    include Connection::ServerChecks
    include ScriptRuns

    attr_reader :location

    # The pool's size and how long a checkout waits (seconds).
    attr_reader :size, :pool_timeout

    # What a push waits for after it is written (Store::Connection::Durability), or nil.
    attr_accessor :durability

    # {slot => [mark, ...]}: marks of pushes Redis answered for, for the
    # next push to the slot to unlink (Store::PushMarks.answered).
    attr_reader :answered_marks

    def initialize(options, size: 5, pool_timeout: 5)
      @options = options
      @naming = nil # {id: name} once #name_connections named them
      @size = size
      @pool_timeout = pool_timeout
      @cluster = Connection::ClusterMode.new(options) if Connection::ClusterMode.nodes(options)
      @redis_config = @cluster ? @cluster.config : client_config(options)
      @location = @cluster ? @cluster.location : describe(@redis_config)
      @translation = Connection::Translation.new(@location)
      @pool = new_pool
      @layout = @cluster ? Layout::PlacedCluster.new(Tags::QueuePlacement.new(self)) : Layout::Plain
      @listing_warning = Jobs::ListingWarning.new(@layout::QUEUES)
      @level_warning = Jobs::LevelWarning.new
      @clock = Records::Clock.new(self)
      @answered_marks = {}
    end

    # Never the options: they may hold a password.
    def inspect = "#<#{self.class.name} #{location}>"

    # True in cluster mode: the store talks to a Redis Cluster (its plumbing:
    # connections, pipelines, WAIT per node). What the mode changes in keys,
    # scripts and round trips, the layout answers.
    def cluster? = !@cluster.nil?

    # Names every connection of this store (CLIENT SETNAME), those opened from
    # now on and those already open (closed, to reopen with the name): how a
    # reaper tells a dead process from a paused one (Store::Connection::Clients).
    def name_connections(name)
      @naming = {id: name}
      if @cluster
        @redis_config = @cluster.config(id: name)
        @pool, old = new_pool, @pool
        old.close
      else
        @redis_config = client_config(@options.merge(id: name))
        @pool.reload(&:close)
      end
    end

    # Which key, which script, how many calls: Sidekiq's layout plus
    # Deckhand's own (Store::Layout::Plain), or in cluster mode the
    # hash-tagged one, each queue under the tag its placement recorded
    # (Store::Layout::PlacedCluster).
    attr_reader :layout

    # Where a push whose queue could not be listed says so (Store::Jobs::Queues.push).
    attr_reader :listing_warning

    # Where a push whose priority level could not be named says so.
    attr_reader :level_warning

    # Redis' clock, the one every host's times are written and compared by
    # (Store::Records::Clock).
    attr_reader :clock

    # Yields a pooled connection for several commands in a row.
    def with
      @pool.with { |conn| yield conn }
    rescue RedisClient::Error, ConnectionPool::TimeoutError => e
      raise @translation.call(e)
    end

    def call(*command) = with { |conn| conn.call(*command) } # :nodoc:

    # Holds one pooled connection for this thread until #checkin, as
    # ConnectionPool#checkout does (drop-in mode's Sidekiq pools offer it);
    # #with is the way that cannot forget to give it back.
    def checkout
      raise ConfigError, "a cluster store has no connection to check out: use #with" if @cluster
      @pool.checkout
    end

    def checkin = @cluster ? nil : @pool.checkin # :nodoc:

    # exception: false leaves Redis' refusals in the replies (RedisClient
    # errors, for the store's own modules to read) instead of raising the first.
    def pipelined(exception: true, &block) = with { |conn| conn.pipelined(exception: exception, &block) }

    def multi(&) = with { |conn| conn.multi(&) } # :nodoc:

    # An error reply of a pipeline run with `exception: false`, as the store
    # raises its errors (a Deckhand::RedisError naming the Redis and, for a
    # Store::Script subclass's refusal, the script).
    def refusal(error, script: nil) = @translation.call(error, script: script && File.basename(script.script_name))

    # How this store words Redis' errors (Store::Connection::Translation: #wrong_type
    # and #lost_write for what a push learned without a reply of its own).
    attr_reader :translation

    # A connection outside the pool, for a thread that blocks in Redis (the idle
    # fetch) and must not hold a pooled connection the processors need.
    def dedicated
      Connection::Dedicated.new(@translation, cluster: cluster?) do |middlewares:, custom:|
        extra = {**@naming.to_h, middlewares: [*@options[:middlewares], *middlewares], custom: {**@options[:custom].to_h, **custom}}
        @cluster ? @cluster.config(**extra) : client_config(@options.merge(extra))
      end
    end

    def shutdown = @cluster ? @pool.close : @pool.shutdown(&:close) # :nodoc:

    private

    # A cluster client pools connections per node by itself.
    def new_pool
      return @redis_config.new_pool(size: @size, timeout: @pool_timeout) if @cluster
      ConnectionPool.new(size: @size, timeout: @pool_timeout) { @redis_config.new_client }
    end

    # A Redis behind Sentinels (`sentinels:` and `name:` in the options) is
    # found through them when a connection opens.
    def client_config(options)
      options.key?(:sentinels) ? RedisClient.sentinel(**options) : RedisClient.config(**options)
    end

    # The location without a password, safe to log. A Sentinel setup is named
    # without asking the Sentinels (that would connect).
    def describe(config)
      if config.is_a?(RedisClient::SentinelConfig)
        return "redis+sentinel://#{config.sentinels.map { |s| "#{s.host}:#{s.port}" }.join(",")}/#{config.name}"
      end
      return "unix://#{config.path}" if config.path
      "#{config.ssl ? "rediss" : "redis"}://#{config.host}:#{config.port}/#{config.db}"
    end
  end
end
