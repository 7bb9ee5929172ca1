# frozen_string_literal: true

require "digest/sha1"

module Deckhand
  # Runs a Store::Script subclass behind a guard: every redis.call and
  # redis.pcall must name a key declared in KEYS first. Neither a plain Redis
  # nor a cluster (within one slot) enforces that; this does.
  #
  #   Guarded = Deckhand::ScriptGuard.wrap(Deckhand::Store::Scripts::BatchOps)
  #   Guarded.new(store, now_ms: ..., stamp: ...).success(bid, jid)
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

    # A subclass of `script` whose Lua runs behind the guard.
    def self.wrap(script)
      Class.new(script) do
        @script_name = script.script_name
        @source = (LUA + script.source).freeze
        @sha = Digest::SHA1.hexdigest(@source).freeze
      end
    end
  end
end
