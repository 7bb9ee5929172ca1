# frozen_string_literal: true

require "digest/sha2"
require "json"

module Deckhand
  # Unique jobs, with Sidekiq Enterprise's option names: while a job holds
  # its lock, pushing the same job (same class, queue and arguments) again
  # returns nil instead of a jid.
  #
  #   class SyncAddressJob
  #     include Deckhand::Job
  #     deckhand_options unique_for: 600                     # seconds the lock may live at most
  #     deckhand_options unique_until: :start                # or :success (the default)
  #     deckhand_unique_args { |args| args.first(1) }        # what makes two jobs "the same"
  #   end
  #
  #   SyncAddressJob.perform_async(42)                       # => "b4a5..." (the jid)
  #   SyncAddressJob.perform_async(42)                       # => nil (logged with the holder's jid)
  #   SyncAddressJob.set(unique_for: false).perform_async(42) # pushed without a lock
  #
  # The lock is a Redis string `unique:<SHA-256 hex>` holding the jid of the
  # job that owns it, with a TTL of unique_for (plus the delay of a scheduled
  # job). It is taken in the push's own round trip and released in the round
  # trip that acknowledges the job's success, or with its death. The key
  # layout is Deckhand's own: Sidekiq Enterprise does not publish its. In
  # cluster mode the key carries its queue's hash tag
  # (`{queue:<name>}:unique:<hex>`), so the push, the fetch's acknowledgement
  # and the outcome scripts take and release it beside the queue's keys;
  # uniqueness is per class, queue and arguments in both modes.
  module Unique
    # A lock to take with a push: its key, the jid it holds, its TTL in ms.
    Lock = Struct.new(:key, :jid, :ttl_ms)

    module_function

    # The lock a job asks for, or nil. `at`: its scheduled time, epoch
    # seconds; `layout`: the store's layout (Store#layout). Records the
    # lock's key in the job ("unique_key"), so the server releases the very
    # key the client took.
    def lock_for(job, at: nil, layout: Store::Layout::Plain)
      ttl = ttl_seconds(job) or return nil
      job["unique_key"] ||= key(job, layout)
      delay = at ? [at - Time.now.to_f, 0].max : 0 # `at` is the application's time
      Lock.new(job["unique_key"], job["jid"], ((ttl + delay) * 1000).ceil)
    end

    # The key of a job's lock in `layout` (Store::Layout::Plain or
    # Store::Layout::Cluster): its class (the Active Job class for wrapped
    # jobs), queue and unique arguments, digested.
    def key(job, layout = Store::Layout::Plain)
      name = job["wrapped"] || job["class"]
      queue = job["queue"].to_s
      layout.unique_lock(queue, Digest::SHA256.hexdigest(JSON.generate([name.to_s, queue, unique_args(job)])))
    end

    # The lock a running job releases: [key, jid, ttl ms], or nil when it
    # holds none. A payload pushed by another client (Sidekiq Enterprise)
    # carries unique_for but no unique_key: its key is derived here, in the
    # store's layout.
    def held_by(job, layout = Store::Layout::Plain)
      return nil unless job.is_a?(Hash)
      ttl = ttl_seconds(job) or return nil
      [job["unique_key"] || key(job, layout), job["jid"], (ttl * 1000).ceil]
    end

    # True when the lock goes just before perform, not after success.
    def until_start?(job) = job["unique_until"].to_s == "start"

    # Seconds a job's lock lives (its unique_for), or nil for a job that is not unique.
    def ttl_seconds(job)
      ttl = job["unique_for"]
      (ttl.is_a?(Numeric) && ttl.positive?) ? ttl : nil
    end

    # The arguments a job's lock is named by: its deckhand_unique_args block's, else its arguments (an Active Job's own).
    def unique_args(job)
      args = job["args"]
      args = args.first["arguments"] if job["wrapped"] && args.first.is_a?(Hash) && args.first.key?("arguments")
      klass = job_class(job["wrapped"] || job["class"])
      block = klass.respond_to?(:deckhand_unique_args) && klass.deckhand_unique_args
      block ? block.call(args) : args
    end

    # The class named `name`, or nil when it is not loaded.
    def job_class(name)
      Object.const_get(name.to_s)
    rescue NameError
      nil
    end
  end
end
