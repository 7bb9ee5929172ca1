# frozen_string_literal: true

require "digest/sha1"

module Deckhand
  # Runs a Store::Script subclass behind a guard: every redis.call and
  # redis.pcall must name a key declared in KEYS first. Neither a plain Redis
  # nor a cluster (within one slot) enforces that; this does.
  #
  #   Guarded = Deckhand::ScriptGuard.wrap(Deckhand::Store::Scripts::BatchOps)
  #   Guarded.new(store, now_ms: ..., stamp: ...).success(bid, jid)   # each batch script guarded
  module ScriptGuard
    LUA = <<~LUA
      local real, allowed = redis, {}
      for _, k in ipairs(KEYS) do allowed[k] = true end
      local function guarded(call)
        return function(command, key, ...)
          if not allowed[key] then error('undeclared key ' .. tostring(key) .. ' in ' .. command) end
          return call(command, key, ...)
        end
      end
      local redis = setmetatable({call = guarded(real.call), pcall = guarded(real.pcall)}, {__index = real})
    LUA

    # A subclass of `script` whose Lua runs behind the guard; of BatchOps,
    # one whose batch scripts all do.
    def self.wrap(script)
      return wrap_batch_ops(script) unless script < Store::Script
      Class.new(script) do
        @script_name = script.script_name
        @source = (LUA + script.source).freeze
        @sha = Digest::SHA1.hexdigest(@source).freeze
      end
    end

    def self.wrap_batch_ops(ops)
      guarded = Hash.new { |all, klass| all[klass] = wrap(klass) }
      lock = Mutex.new
      Class.new(ops) do
        define_method(:script) { |klass| lock.synchronize { guarded[klass] }.new(@store, now_ms: @now_ms, stamp: @stamp) }
        private :script
      end
    end
  end
end
