# frozen_string_literal: true

require "redis_client"
require_relative "setup"
require_relative "../driver_redis"

module Torture
  module Faults
    # The jobs the periodic entry's leader enqueues (Setup::TICK), for the
    # census to check as it checks the stream's pushes: the entry's state
    # names the jid of its latest tick, read from a thread every 50 ms.
    # While the state is of the wrong type nothing is read (and nothing is
    # enqueued).
    #
    #   watch = TickWatch.new(redis_url).start
    #   watch.stop.acked   # => {jid => "periodic"}
    class TickWatch
      STATE = "deckhand:periodic:entry:#{Setup::TICK}"

      def initialize(redis_url, every: 0.05)
        @redis = Torture.redis(redis_url)
        @every = every
        @jids = {}
        @lock = Mutex.new
        @running = true
      end

      def start
        @thread = Thread.new do
          while @running
            look
            sleep @every
          end
        end
        self
      end

      def stop
        @running = false
        @thread&.join
        @redis.close
        self
      end

      def acked = @lock.synchronize { @jids.dup }

      private

      def look
        jid = @redis.call("HGET", STATE, "last_jid")
        @lock.synchronize { @jids[jid] = "periodic" } if jid.is_a?(String) && !jid.empty?
      rescue RedisClient::Error
        nil # the state broken, or Redis refusing: the next look
      end
    end
  end
end
