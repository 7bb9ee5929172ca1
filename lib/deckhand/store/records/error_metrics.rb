# frozen_string_literal: true

module Deckhand
  class Store # :nodoc:
    module Records
      # Failed executions per error class, per UTC minute and hour, kept as
      # the per-class metrics are (72 and 73 hours), for the dashboard's
      # "failures by error class". Counted in memory on the failure path only
      # (ExecutionMetrics::Tally#record_error; a success costs nothing
      # more) and written with each heartbeat.
      #
      #   ErrorMetrics.flush(pipe, tally.take_errors, now: Time.now)    # per heartbeat
      #   ErrorMetrics.read(store, keys)   # => [{"Net::ReadTimeout" => 3}, {}, ...] one per key
      #
      # Layout: a hash per minute (Layout::Untagged.errors_minute) and hour
      # (errors_hour) under the metrics' prefix, so in cluster mode they
      # share the metrics' slot; a field per error class holding its count.
      # Bounded: the tally tells at most Tally::MAX_ERRORS classes apart per
      # heartbeat.
      module ErrorMetrics # :nodoc:
        MINUTE_TTL = ExecutionMetrics::MINUTE_TTL
        HOUR_TTL = ExecutionMetrics::HOUR_TTL

        module_function

        def minute_key(time, prefix) = Layout::Untagged.errors_minute(prefix, time)

        def hour_key(time, prefix) = Layout::Untagged.errors_hour(prefix, time)

        # Queues the writes of {error class => failures} on a pipeline.
        def flush(pipe, errors, now:, prefix: ExecutionMetrics::PREFIX)
          return if errors.empty?
          [[minute_key(now, prefix), MINUTE_TTL], [hour_key(now, prefix), HOUR_TTL]].each do |key, ttl|
            errors.each { |error, n| pipe.call("HINCRBY", key, error, n) }
            pipe.call("EXPIRE", key, ttl)
          end
        end

        # {error class => failures} of each hash, in one round trip; a value
        # that is not a count (another tool's) reads as none.
        def read(store, keys)
          return [] if keys.empty?
          store.pipelined { |pipe| keys.each { |key| pipe.call("HGETALL", key) } }.map do |fields|
            fields = fields.each_slice(2).to_h if fields.is_a?(Array) # RESP2 answers pairs flat
            fields.to_h { |error, n| [error, n.to_i] }.select { |_, n| n.positive? }
          end
        end
      end
    end
  end
end
