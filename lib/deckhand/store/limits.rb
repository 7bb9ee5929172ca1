# frozen_string_literal: true

require_relative "limit_keys"
%w[limit_check limit_concurrent limit_release limit_bucket limit_window limit_leaky limit_points].each do |script|
  require_relative "scripts/#{script}"
end

module Deckhand
  class Store
    # What limiters (Deckhand::Limiter) keep in Redis, beyond their scripts:
    # the blocking wait of a concurrent limiter, and the metrics the
    # dashboard's Limits page reads.
    #
    #   Store::Limits.wait_release(store, "stripe", 2.5)   # => true when a slot was released
    #   Store::Limits.list(store, filter: "stripe")        # => [{"name" => "stripe", "type" => "concurrent", ...}]
    module Limits
      module_function

      # Blocks inside Redis until a holder of the concurrent limiter `name`
      # releases a slot or `timeout` seconds pass: no polling.
      def wait_release(store, name, timeout)
        timeout = [timeout, 0.01].max.round(3)
        woken = store.with { |conn| conn.blocking_call(timeout + 1, "BLPOP", LimitKeys.wake(name), timeout) }
        !woken.nil?
      end

      # The limiters used in the last day, with their metrics, most recently
      # used first; `filter` keeps the names containing it.
      def list(store, filter: nil, limit: 500)
        day_ago = ((::Process.clock_gettime(::Process::CLOCK_REALTIME) - 86_400) * 1000).to_i
        names = store.call("ZRANGE", LimitKeys::INDEX, "+inf", day_ago, "BYSCORE", "REV", "LIMIT", 0, limit)
        names = names.select { |name| name.include?(filter) } if filter && !filter.empty?
        return [] if names.empty?
        rows = store.pipelined { |pipe| names.each { |name| pipe.call("HGETALL", LimitKeys.metrics(name)) } }
        names.zip(rows).map { |name, row| {"name" => name}.merge(row) }
      end

      # Holders of a concurrent limiter right now (locks not yet expired).
      def holders(store, name)
        now_ms = (::Process.clock_gettime(::Process::CLOCK_REALTIME) * 1000).to_i
        store.call("ZCOUNT", LimitKeys.state("concurrent", name), now_ms, "+inf")
      end
    end
  end
end
