# frozen_string_literal: true

require "digest/sha1"

module Deckhand
  class Store
    # One Lua script of store/scripts/: read once, run by SHA, sent again when
    # Redis answers NOSCRIPT (it restarted or its script cache was flushed).
    # Each subclass owns its script's contract: callers say what they want
    # done, the subclass builds KEYS and ARGV, and every key the script touches
    # is declared in KEYS (Redis Cluster and Dragonfly refuse the rest).
    #
    #   class Store::Scripts::Ping < Store::Script
    #     lua "ping"
    #     def call(key) = run([key], [])
    #   end
    #   Store::Scripts::Ping.new(store).call("deckhand:ping")
    class Script # :nodoc:
      DIR = File.expand_path("scripts", __dir__)

      class << self
        attr_reader :source, :sha, :script_name, :script_uses

        # Names the .lua file under store/scripts/ this class runs, and the
        # shared functions (store/scripts/lib/*.lua) it needs, which are put
        # in front of its source: Redis scripts cannot load each other. A
        # subclass naming its parent's script needs the same functions.
        def lua(name, uses: nil)
          uses ||= (superclass.respond_to?(:script_name) && superclass.script_name == name) ? superclass.script_uses : []
          @script_name = name
          @script_uses = uses
          parts = uses.map { |lib| File.read(File.join(DIR, "lib", "#{lib}.lua")) }
          @source = (parts << File.read(File.join(DIR, "#{name}.lua"))).join("\n").freeze
          @sha = Digest::SHA1.hexdigest(@source).freeze
        end
      end

      def initialize(store)
        @store = store
      end

      private

      def keys = @store.layout

      # Runs the script; with `conn:`, on that connection (inside a pipeline
      # or transaction the caller holds).
      def run(keys, argv, conn: nil) = @store.evalsha(self.class, keys, argv, conn: conn)

      # Runs a script that pushes jobs: as #run, and when push_replicas is set
      # (Store::Connection::Durability#evalsha) followed on its connection by WAIT; the
      # block gets the reply and names the jids it pushed, for the
      # NotReplicated raised when fewer replicas acknowledged them in time.
      # Without push_replicas it is #run: the block is never called.
      def run_durably(keys, argv, &)
        durability = @store.durability
        return @store.evalsha(self.class, keys, argv) unless durability
        durability.evalsha(@store, self.class, keys, argv, &)
      end

      # The first keys of a script that pushes jobs to `queue`: its list and
      # its scheduled set, and in plain mode the set of queue names, where
      # the script names the queue. In cluster mode that set lives in
      # another slot, so the queue is named there by a command of its own,
      # sent here, before the script: the scheduler finds a queue's
      # scheduled set through it.
      def push_keys(queue)
        list = [keys.queue(queue), keys.scheduled_set(queue)]
        return list.unshift(keys::QUEUES) if keys.plain?
        @store.call("SADD", keys::QUEUES, queue)
        list
      end

      # Runs the script, then `reads` in the same round trip (Store#evalsha_then).
      def run_then(keys, argv, reads) = @store.evalsha_then(self.class, keys, argv, reads)

      # Runs the script once per [keys, argv] in `calls`, in one pipeline
      # (Store#evalsha_many; in cluster mode give each call the keys of one
      # slot). Replies in the order of the calls.
      def run_pipelined(calls) = calls.empty? ? [] : @store.evalsha_many(self.class, calls)
    end
  end
end
