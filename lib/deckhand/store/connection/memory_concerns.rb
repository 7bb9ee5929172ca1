# frozen_string_literal: true

module Deckhand
  class Store
    module Connection
      # What Deckhand tells people about a Redis' memory (RedisMemory::Node),
      # in the same words in the log, the /ready probe and the dashboard: a
      # policy that can evict Deckhand's keys, memory at HIGH or FULL of
      # maxmemory, keys evicted. Each concern names the danger and the fix.
      #
      #   concerns = MemoryConcerns.of(RedisMemory.read(store), evicted: {"redis://10.0.0.5:6379/0" => 120})
      #   concerns.map { |c| [c.kind, c.level] }   # => [[:policy, :warn], [:memory, :full], [:evicted, :error]]
      #   concerns.first.text   # => "Redis at redis://10.0.0.5:6379/0 has maxmemory-policy allkeys-lru (...): ..."
      module MemoryConcerns # :nodoc:
        HIGH = 0.90 # share of maxmemory used that warns
        FULL = 0.98 # and that warns louder: the next writes are refused, or evict

        # kind: :policy, :memory or :evicted; level: :warn, :high, :full or :error.
        Concern = Struct.new(:kind, :address, :level, :text) do
          def key = [kind, address]
        end

        FIX = "Fix: `CONFIG SET maxmemory-policy noeviction` and the same in redis.conf (`maxmemory-policy noeviction`), " \
          "or on a managed Redis the maxmemory-policy of its parameter group; a full Redis then refuses pushes, which " \
          "raise, and loses nothing"
        ROOM = "Make room: trim the dead and retry sets (the dashboard's Dead and Retries pages, a lower dead_max_jobs), " \
          "delete other applications' keys, or raise maxmemory"
        WHY = {
          volatile: "it deletes keys that have a TTL when memory runs short, and Deckhand's process records, locks and " \
            "leases have one: a live process whose record is evicted looks dead, so the others recover its running jobs " \
            "and run them twice, and unique locks and limiter leases vanish",
          any: "when memory runs short it deletes keys, whole queues of jobs among them, and no one gets an error"
        }.freeze

        module_function

        # evicted: address => keys evicted since the last look; nil counts
        # every key each node evicted since it started.
        def of(nodes, evicted: nil)
          nodes.flat_map { |node| [policy(node), memory(node), evictions(node, evicted)].compact }
        end

        def policy(node)
          return nil unless node.evicting?
          why = WHY[node.volatile? ? :volatile : :any]
          Concern.new(:policy, node.address, :warn,
            "Redis at #{node.address} has maxmemory-policy #{node.policy} (#{usage(node)}): #{why}. #{FIX}")
        end

        def memory(node)
          ratio = node.ratio
          return nil unless ratio && ratio >= HIGH
          then_what = if node.volatile?
            "it evicts keys that have a TTL (#{node.policy}): process records, locks and leases"
          elsif node.evicting?
            "it evicts keys (#{node.policy}), jobs among them"
          else
            "it refuses writes: pushes raise and finished jobs' acknowledgements wait, nothing is lost"
          end
          Concern.new(:memory, node.address, (ratio >= FULL) ? :full : :high,
            "Redis at #{node.address} is #{percent(ratio)} full (#{size(node.used)} of maxmemory #{size(node.maxmemory)}): " \
            "at maxmemory #{then_what}. #{ROOM}")
        end

        def evictions(node, evicted)
          count = evicted ? evicted[node.address].to_i : node.evicted.to_i
          return nil unless count.positive?
          since = evicted ? "since the last look" : "since it started"
          fix = node.evicting? ? FIX : "Its policy is noeviction now, so these happened before (`CONFIG RESETSTAT` zeroes the count)"
          Concern.new(:evicted, node.address, :error,
            "Redis at #{node.address} evicted #{count} #{(count == 1) ? "key" : "keys"} #{since} (INFO stats evicted_keys): " \
            "where they were Deckhand's, queued jobs are lost and live processes look dead. #{fix}")
        end

        # What the log says when a concern ends; node: what the last look saw
        # of its Redis (nil when that primary has left the cluster).
        def ended(kind, address, node)
          return "Redis at #{address} is no longer among the primaries: no more concern about its memory" unless node
          case kind
          when :policy then "Redis at #{address} has maxmemory-policy #{node.policy || "unknown"} now: it evicts none of Deckhand's keys"
          when :memory then "Redis at #{address} is under #{percent(HIGH)} of maxmemory again (#{usage(node)})"
          else "Redis at #{address} evicted no key since the last look"
          end
        end

        # Why a server with refuse_evicting_redis does not start, or nil.
        def refusal(nodes)
          evicting = nodes.select(&:evicting?)
          unknown = nodes.select { |node| node.policy.nil? }
          return nil if evicting.empty? && unknown.empty?
          told = evicting.map { |node| "Redis at #{node.address} has maxmemory-policy #{node.policy}" } +
            unknown.map { |node| "Redis at #{node.address} does not say its maxmemory-policy (INFO memory has no maxmemory_policy)" }
          "refuse_evicting_redis is set and #{told.join("; ")}: it may delete Deckhand's keys when memory runs short, so " \
            "this server does not start. #{FIX}. Or set refuse_evicting_redis to false to run anyway, with a warning"
        end

        def usage(node)
          used = node.used ? "#{size(node.used)} used" : "use unknown"
          return "#{used} of maxmemory #{size(node.maxmemory)}, #{percent(node.ratio)}" if node.ratio
          node.maxmemory ? "#{used}, no maxmemory set" : used
        end

        def percent(ratio) = "#{(ratio * 100).floor}%"

        def size(bytes)
          (bytes >= 1 << 30) ? format("%.1f GB", bytes / (1 << 30).to_f) : format("%.1f MB", bytes / (1 << 20).to_f)
        end
      end
    end
  end
end
