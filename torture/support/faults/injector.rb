# frozen_string_literal: true

require "socket"
require "redis_client"

module Torture
  module Faults
    # Breaks the system's Redis for a moment, then mends it: a key made the
    # wrong type, Redis made a read-only replica, Redis out of memory. Only
    # what the injector itself wrote is deleted: a key that held Deckhand's
    # data is set aside first and put back when the fault clears (merged with
    # whatever the fleet wrote there after the fault was deleted), so the
    # books count what Deckhand did, not what the fault destroyed.
    #
    #   injector = Injector.new(redis)
    #   injector.wrong_type("retry", hold: 1.0)   # retry is a string for a second
    #   injector.read_only(hold: 2.0)
    #   injector.out_of_memory(hold: 2.0)
    #   injector.count                            # => 3
    class Injector
      # KEYS[1] the key, KEYS[2] where its data waits. A string becomes a
      # list, anything else a string. Returns the type the key held.
      BREAK = <<~LUA
        local held = redis.call('TYPE', KEYS[1]).ok
        if held ~= 'none' then redis.call('RENAME', KEYS[1], KEYS[2]) end
        if held == 'string' then redis.call('RPUSH', KEYS[1], 'deckhand-fault') else redis.call('SET', KEYS[1], 'deckhand-fault') end
        return held
      LUA

      # Deletes the fault's value, then gives the key its data back (merged
      # into what the fleet wrote there since, if anything).
      MEND = <<~LUA
        local held, aside = KEYS[1], KEYS[2]
        local t = redis.call('TYPE', held).ok
        if (t == 'string' and redis.call('GET', held) == 'deckhand-fault') or
          (t == 'list' and redis.call('LINDEX', held, 0) == 'deckhand-fault' and redis.call('LLEN', held) == 1) then
          redis.call('DEL', held)
          t = 'none'
        end
        local kind = redis.call('TYPE', aside).ok
        if kind == 'none' then return 0 end
        if t == 'none' then
          redis.call('RENAME', aside, held)
          return 1
        end
        if kind == 'list' then
          for _, v in ipairs(redis.call('LRANGE', aside, 0, -1)) do redis.call('RPUSH', held, v) end
        elseif kind == 'zset' then
          redis.call('ZUNIONSTORE', held, 2, held, aside)
        elseif kind == 'set' then
          redis.call('SUNIONSTORE', held, held, aside)
        elseif kind == 'hash' then
          local flat = redis.call('HGETALL', aside)
          for i = 1, #flat, 2 do redis.call('HSETNX', held, flat[i], flat[i + 1]) end
        end
        redis.call('DEL', aside)
        return 2
      LUA

      # log: [what, epoch seconds it began] per fault.
      attr_reader :count, :log

      def initialize(redis)
        @redis = redis
        @count = 0
        @log = []
      end

      # `key` holds another type for `hold` seconds; the block (if any) runs
      # meanwhile (to wait for the fleet to trip over it).
      def wrong_type(key, hold:)
        aside = "deckhand-fault:aside:#{key}"
        held = @redis.call("EVAL", BREAK, 2, key, aside)
        @count += 1
        @log << ["#{key} (#{held})", Time.now.to_f]
        sleep hold
      ensure
        @redis.call("EVAL", MEND, 2, key, aside) if held
      end

      # Redis refuses every write (READONLY) for `hold` seconds: it is made a
      # replica of a port where nothing listens, then a primary again.
      def read_only(hold:)
        @redis.call("REPLICAOF", "127.0.0.1", dead_port.to_s)
        @count += 1
        @log << ["READONLY", Time.now.to_f]
        sleep hold
      ensure
        @redis.call("REPLICAOF", "NO", "ONE")
      end

      # Redis refuses every write that needs memory (OOM) for `hold` seconds:
      # maxmemory under what it uses, with noeviction.
      def out_of_memory(hold:)
        before = config("maxmemory", "maxmemory-policy")
        used = @redis.call("INFO", "memory")[/used_memory:(\d+)/, 1].to_i
        @redis.call("CONFIG", "SET", "maxmemory-policy", "noeviction")
        @redis.call("CONFIG", "SET", "maxmemory", [1024 * 1024, used / 2].min.to_s)
        @count += 1
        @log << ["OOM", Time.now.to_f]
        sleep hold
      ensure
        before&.each { |name, value| @redis.call("CONFIG", "SET", name, value) }
      end

      private

      def config(*names) = names.to_h { |name| [name, @redis.call("CONFIG", "GET", name).then { |r| r.is_a?(Hash) ? r.values.first : r.last }] }

      # A port nothing listens on: taken from the kernel, then let go.
      def dead_port
        server = TCPServer.new("127.0.0.1", 0)
        server.addr[1]
      ensure
        server&.close
      end
    end
  end
end
