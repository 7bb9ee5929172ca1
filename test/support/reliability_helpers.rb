# frozen_string_literal: true

require "json"

module Deckhand
  # Builds the Redis traces a process leaves when it dies: an owner entry and
  # an in-flight record, with no live process record. Used by the reaper tests.
  module ReliabilityHelpers
    Keys = Deckhand::Store::Layout::Plain

    # The key layout the traces are written in (ClusterHelpers: the cluster's).
    def keys = Keys

    def payload(jid, queue: "default", klass: "RecordJob", args: [jid])
      job = {"class" => klass, "args" => args, "jid" => jid, "queue" => queue, "retry" => true,
             "created_at" => 1_700_000_000_000, "enqueued_at" => 1_700_000_000_000}
      JSON.generate(job)
    end

    # A process that died holding `lots` (queue => lots, each an Array of
    # payloads in the order they were taken, or [payloads, settled positions])
    # and `landing` (queue => payloads, oldest first), with `suspects` (queue
    # => jids) the suspects it had recorded as running. `recoveries` (queue =>
    # {jid => count}) plants earlier recovery counts.
    def dead_process(identity = "deadhost:4242:0dead", queues: ["default"], lots: {}, landing: {}, suspects: {}, recoveries: {})
      owner = {"queues" => queues, "hostname" => "deadhost", "pid" => 4242, "started_at" => Time.now.to_f - 60}
      redis.call("HSET", keys::OWNERS, identity, JSON.generate(owner))
      redis.call("SADD", keys::PROCESSES, identity)
      id = 0
      lots.each do |queue, list|
        list.each do |lot|
          payloads, settled = lot.first.is_a?(Array) ? lot : [lot, []]
          id += 1
          redis.call("RPUSH", keys.lot(identity, queue, id), *payloads)
          redis.call("HSET", keys.inflight(identity, queue), id.to_s, payloads.size)
          next if settled.empty?
          bits = Deckhand::Store::Inflight::LotBits.empty_bits(payloads.size)
          settled.each { |p| Deckhand::Store::Inflight::LotBits.settle!(bits, p) }
          redis.call("HSET", keys.inflight(identity, queue), "#{id}~", bits)
        end
      end
      landing.each { |queue, payloads| redis.call("LPUSH", keys.landing(identity, queue), *payloads) }
      suspects.each { |queue, jids| redis.call("SADD", keys.suspects(identity, queue), *jids) }
      recoveries.each { |queue, counts| redis.call("HSET", keys.recoveries(queue), *counts.flatten, "~v", "1") }
      identity
    end

    # A process that beats: its record exists with a TTL.
    def live_process(identity, ttl: 30, **options)
      dead_process(identity, **options)
      redis.call("HSET", keys.process(identity), "beat", Time.now.to_f)
      redis.call("EXPIRE", keys.process(identity), ttl)
      identity
    end

    def reaper(config = Deckhand.config, identity: "reaper:1:#{SecureRandom.hex(3)}")
      Deckhand::Server::Recovery::Reaper.new(config: config, store: config.store, identity: identity)
    end

    def queue_jids(queue) = jobs_in(queue).map { |job| job["jid"] }

    def recoveries(jid, queue: "default") = redis.call("HGET", keys.recoveries(queue), jid)&.to_i

    # The reaper leaves a freshly started Redis alone for one heartbeat TTL.
    def wait_for_redis_uptime(seconds)
      wait_for(timeout: seconds + 5, message: "Redis uptime of #{seconds}s") do
        redis.call("INFO", "server")[/uptime_in_seconds:(\d+)/, 1].to_i >= seconds
      end
    end
  end
end
