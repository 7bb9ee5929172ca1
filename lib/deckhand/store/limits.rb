# frozen_string_literal: true

%w[limit_check limit_release limit_points].each do |script|
  require_relative "scripts/limit/#{script}"
end

module Deckhand
  class Store
    # What limiters (Deckhand::Limiter) keep in Redis, beyond their scripts:
    # the blocking wait of a concurrent limiter, and the metrics the
    # dashboard's Limits page reads. Every key carries a TTL, so dynamic
    # names ("stripe-#{account}") do not leak keys. The keys (store.layout;
    # in cluster mode each limiter's share the tag {limit:<name>}):
    #
    #   deckhand:limit:concurrent:<name>        zset: holder id => lock expiry (ms)
    #   deckhand:limit:concurrent:<name>:wake   list: one entry per release, what waiters block on
    #   deckhand:limit:<type>:<name>            bucket/leaky/points: hash; window: zset
    #   deckhand:limit:metrics:<name>           hash: type, size, held, waited, wait_ms, over, reclaimed
    #   deckhand:limits                         zset: name => last use (ms), for the dashboard;
    #                                           names unused for a day are pruned
    #                                           whenever a new name is first used
    #
    #   Store::Limits.wait_release(store, "stripe", 2.5)   # => true when a slot was released
    #   Store::Limits.list(store, filter: "stripe")        # => [{"name" => "stripe", "type" => "concurrent", ...}]
    module Limits
      # A metrics field only cluster mode writes (when the name was last
      # written to the index), not a metric.
      INDEXED = "indexed"

      module_function

      # Blocks inside Redis until a holder of the concurrent limiter `name`
      # releases a slot or `timeout` seconds pass: no polling.
      def wait_release(store, name, timeout)
        timeout = [timeout, 0.01].max.round(3)
        woken = store.with { |conn| conn.blocking_call(timeout + 1, "BLPOP", store.layout.limit_wake(name), timeout) }
        !woken.nil?
      end

      # The limiters used in the last day, with their metrics, most recently
      # used first; `filter` keeps the names containing it. In cluster mode
      # "last use" is known to the minute (see Scripts::LimitCheck).
      def list(store, filter: nil, limit: 500)
        day_ago = ((fleet_now(store) - 86_400) * 1000).to_i
        names = store.call("ZRANGE", store.layout::LIMITS, "+inf", day_ago, "BYSCORE", "REV", "LIMIT", 0, limit)
        names = names.select { |name| name.include?(filter) } if filter && !filter.empty?
        return [] if names.empty?
        rows = store.pipelined { |pipe| names.each { |name| pipe.call("HGETALL", store.layout.limit_metrics(name)) } }
        names.zip(rows).map { |name, row| {"name" => name}.merge(row.to_h.except(INDEXED)) }
      end

      # Redis' time, as the limiter scripts stamp their scores (TIME).
      def fleet_now(store)
        store.clock.refresh
        store.clock.now
      end

      # Holders of a concurrent limiter right now (locks not yet expired).
      def holders(store, name)
        now_ms = (fleet_now(store) * 1000).to_i
        store.call("ZCOUNT", store.layout.limit("concurrent", name), now_ms, "+inf")
      end
    end
  end
end
