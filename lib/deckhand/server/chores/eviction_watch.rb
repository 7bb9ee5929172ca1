# frozen_string_literal: true

module Deckhand
  module Server
    module Chores
      # Watches whether Redis may delete Deckhand's keys, or is about to fill
      # up, while the server runs. A look (Store::Connection::RedisMemory: two INFO calls
      # to each primary, in one round trip) is taken at boot and then by the
      # heartbeat's thread at its first beat eviction_check_interval (30 s)
      # after the last one: no thread of its own, and a cost to Redis that a
      # fleet does not notice. What a look finds (Store::Connection::MemoryConcerns: an
      # evicting maxmemory-policy, memory at 90 % or 98 % of maxmemory, keys
      # evicted since the last look) is logged when it begins or gets worse,
      # again every REMIND looks while it lasts (5 minutes at 30 s), and once
      # when it ends; Operations shows the last look on /metrics, to StatsD
      # and on /ready. With refuse_evicting_redis, the boot look raises instead.
      #
      #   watch = EvictionWatch.new(config: config, store: config.store)
      #   watch.boot    # ConfigError with refuse_evicting_redis and an evicting policy; else the first look
      #   watch.tick    # after a heartbeat's beat: a look, when one is due
      #   watch.look.concerns.map(&:text)   # => ["Redis at ... has maxmemory-policy allkeys-lru (...): ..."]
      class EvictionWatch
        REMIND = 10

        # nodes: Store::Connection::RedisMemory::Node of each primary; evicted: address =>
        # keys evicted since the look before (nil at the first look).
        Look = Struct.new(:nodes, :concerns, :evicted)

        LOUD = {warn: :warn, high: :warn, full: :error, error: :error}.freeze

        # Refuses a Redis that may evict (or does not say), without a word in
        # the log: the CLI asks before it forks a swarm's workers.
        def self.refuse!(store)
          reason = Store::Connection::MemoryConcerns.refusal(Store::Connection::RedisMemory.read(store))
          raise ConfigError, reason if reason
        rescue CommandError => e
          raise ConfigError, "refuse_evicting_redis is set and Redis refused INFO, which tells its maxmemory-policy " \
            "(#{e.message}): this server does not start. Allow INFO to Deckhand's user, or set refuse_evicting_redis to false"
        end

        attr_reader :look

        # told: concerns the caller logged already (drop-in's sidekiq command
        # warns before it launches, as Sidekiq does): the first look does not
        # say them again.
        def initialize(config:, store:, told: [])
          @store = store
          @logger = config.logger
          @interval = config.eviction_check_interval
          @refuse = config.refuse_evicting_redis
          @look = Look.new([], [], nil).freeze
          @logged = told.to_h { |concern| [concern.key, [concern.level, 0]] } # concern key => [level, looks since it was logged]
          @due = 0.0
          @blind = false
        end

        def boot
          self.class.refuse!(@store) if @refuse
          look!
          self
        end

        def tick
          look! if Monotonic.now >= @due
        end

        private

        def look!
          @due = Monotonic.now + @interval
          nodes = Store::Connection::RedisMemory.read(@store)
          evicted = since_last(nodes) unless @look.nodes.empty?
          concerns = Store::Connection::MemoryConcerns.of(nodes, evicted: evicted)
          report(concerns, nodes)
          @look = Look.new(nodes, concerns, evicted).freeze
          @blind = false
        rescue CommandError => e
          blind(e)
        rescue RedisError
          nil # unreachable: the heartbeat says so, and the next look tries again
        end

        # Keys evicted since the look before; a count that went down (Redis
        # restarted, CONFIG RESETSTAT) counts from zero.
        def since_last(nodes)
          before = @look.nodes.to_h { |node| [node.address, node.evicted.to_i] }
          nodes.to_h do |node|
            now = node.evicted.to_i
            last = before.fetch(node.address, 0)
            [node.address, (now >= last) ? now - last : now]
          end
        end

        def report(concerns, nodes)
          concerns.each do |concern|
            level, looks = @logged[concern.key]
            if level != concern.level || looks + 1 >= REMIND
              @logger.public_send(LOUD.fetch(concern.level), concern.text)
              @logged[concern.key] = [concern.level, 0]
            else
              @logged[concern.key] = [level, looks + 1]
            end
          end
          (@logged.keys - concerns.map(&:key)).each do |kind, address|
            @logged.delete([kind, address])
            @logger.info(Store::Connection::MemoryConcerns.ended(kind, address, nodes.find { |node| node.address == address }))
          end
        end

        # INFO refused (renamed away, or not in the user's ACL): said once
        # until a look works again.
        def blind(error)
          @logger.warn("cannot watch Redis' memory and eviction policy: #{error.message}. Allow INFO to Deckhand's user") unless @blind
          @blind = true
        end
      end
    end
  end
end
