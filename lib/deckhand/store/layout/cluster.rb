# frozen_string_literal: true

require_relative "tag_names"
require_relative "sidekiq_names"
require_relative "cluster_workflows"

module Deckhand
  class Store
    module Layout
      # The key names in cluster mode (docs/cluster.md). A Lua script runs on one
      # node, so every key it touches must hash to one slot: each queue's keys
      # share the hash tag `{queue:<name>}` (its list is exactly that key), so a
      # fetch, an outcome or a recovery touches one slot and queues spread over
      # the shards; the fleet's own records (processes, owners, stats, periodic
      # state) share the tag `{deckhand}`, one round trip per heartbeat. The
      # scheduled, retry and dead sets are sharded per queue.
      #
      # The same methods as Layout::Plain, minus the unsharded SCHEDULE, RETRY
      # and DEAD: code that must iterate the shards cannot silently read one.
      #
      # Which tag a queue carries is the placement's choice (Store::Tags::QueuePlacement,
      # docs/cluster.md "Placement"): a store's layout is a Layout::PlacedCluster,
      # these names with each queue's recorded tag. This module's own `tag` is
      # the tag a queue has without a placement, `{queue:<name>}`, which every
      # queue created before placement keeps.
      #
      #   layout = Deckhand::Store::Layout::Cluster
      #   layout.queue("default")                   # => "{queue:default}"
      #   layout.inflight("host:1:abc", "default")  # => "{queue:default}:inflight:host:1:abc"
      #   layout.retry_set("default")               # => "{queue:default}:retry"
      #   layout::PROCESSES                         # => "{deckhand}:processes"
      #   layout.script_calls([2, 0], [0, 1, 2])    # => [[0], [2]]: one call per queue worked on
      module Cluster
        FLEET = "{deckhand}"

        QUEUES = "#{FLEET}:queues"
        PROCESSES = "#{FLEET}:processes"
        PROCESSED = "#{FLEET}:stat:processed"
        FAILED = "#{FLEET}:stat:failed"
        EXPIRED = "#{FLEET}:stat:expired"
        OWNERS = "#{FLEET}:owners"
        REAPER_LOCK = "#{FLEET}:reaper:lock"
        PERIODIC_LEADER = "#{FLEET}:periodic:leader"
        PERIODIC_FENCE = "#{FLEET}:periodic:fence"
        PERIODIC_SCHEDULE = "#{FLEET}:periodic:schedule"
        METRICS = "#{FLEET}:metrics"
        PERIODIC_PENDING = "#{FLEET}:periodic:pending"
        LIMITS = "#{FLEET}:limits"
        # Hash of queue name => the hash tag its keys carry (Store::Tags::QueuePlacement).
        PLACEMENT = "#{FLEET}:placement"
        # Queue moves (Store::Tags::QueuePlacement::Moves): the placement epoch,
        # the moves under way, the tags they retired, and the lock that lets
        # one move run at a time.
        PLACEMENT_EPOCH = "#{FLEET}:placement:epoch"
        PLACEMENT_MOVES = "#{FLEET}:placement:moves"
        PLACEMENT_RETIRED = "#{FLEET}:placement:retired"
        PLACEMENT_LOCK = "#{FLEET}:placement:lock"

        # Characters a queue name cannot hold in cluster mode: they would end or
        # start its hash tag.
        TAG_BRACES = /[{}]/

        # The hash tag every key of `queue` carries without a placement;
        # raises for a name that cannot be one.
        def self.tag(queue) = "{queue:#{valid_name(queue)}}"

        # The n-th hash tag a new queue may be placed under (Store::Tags::QueuePlacement):
        # `{queue:<name>}` first, then `{queue~<n>:<name>}`, never another
        # queue's tag (the `~n` sits before the colon).
        def self.candidate(queue, n) = n.zero? ? tag(queue) : "{queue~#{n}:#{valid_name(queue)}}"

        # Settles the tags of `queues` at once (PlacedCluster: one round trip
        # for those not known yet); without a placement every tag is known.
        def self.place(_queues) = nil

        # The queue's name as a string, refused when it cannot be in a hash tag.
        def self.valid_name(queue)
          name = queue.to_s
          if name.empty? || name.match?(TAG_BRACES)
            raise ConfigError, "queue name #{name.inspect} cannot be used in cluster mode: it must be non-empty " \
              "and hold no { or } (they delimit Redis Cluster hash tags). Rename the queue"
          end
          name
        end

        # Every key name, from `tag(queue)`: Cluster's own (the unplaced
        # tag) or a PlacedCluster's (the placement's).
        module Names # :nodoc:
          include SidekiqNames

          # False: cluster mode. Each queue's keys share a slot of their own
          # (its placement's tag), the fleet's records another, so a script
          # touches one queue at a time.
          def plain? = false

          # True: each queue has its own scheduled, retry and dead set, in its slot.
          def sets_per_queue? = true

          # [queue, key] of the sets of one kind of each of `queues`.
          def set_keys(kind, queues)
            place(queues)
            queues.sort.map { |queue| [queue, public_send(kind, queue)] }
          end

          # One call per queue worked on: each queue is a slot.
          def script_calls(indexes, _all) = indexes.sort.zip

          # The batches' key names (Layout::ClusterBatches).
          def batches = ClusterBatches

          # The workflows' key names (Layout::ClusterWorkflows).
          def workflows = ClusterWorkflows

          # The fetch script's wrapper: one script call per queue, pipelined.
          def fetch_script = Scripts::FetchByQueue

          def queue(name) = tag(name)

          def scheduled_set(queue) = TagNames.set(tag(queue), "schedule")

          def retry_set(queue) = TagNames.set(tag(queue), "retry")

          def dead_set(queue) = TagNames.set(tag(queue), "dead")

          def process(identity) = "#{FLEET}:process:#{identity}"

          def work(identity) = "#{FLEET}:process:#{identity}:work"

          def signals(identity) = "#{FLEET}:process:#{identity}:signals"

          def chunk_members(identity) = "#{FLEET}:process:#{identity}:chunk-members"

          def inflight(identity, queue) = TagNames.inflight(tag(queue), identity)

          def lot(identity, queue, id) = "#{tag(queue)}:lot:#{identity}:#{id}"

          def landing(identity, queue) = TagNames.landing(tag(queue), identity)

          def recoveries(queue) = "#{tag(queue)}:recoveries"

          def suspects(identity, queue) = "#{tag(queue)}:suspects:#{identity}"

          def poison(queue) = "#{tag(queue)}:poison"

          # In the fleet's slot, so a heartbeat reads the marks of all the
          # jobs its process runs with one MGET.
          def cancel_mark(jid) = "#{FLEET}:cancel:#{jid}"

          def cancelled(jid) = "#{FLEET}:cancelled:#{jid}"

          def periodic(name) = "#{FLEET}:periodic:entry:#{name}"

          def periodic_history(name) = "#{FLEET}:periodic:history:#{name}"

          # In the queue's slot, where periodic_push.lua pushes the entry's ticks.
          def periodic_pushed(queue, name) = "#{tag(queue)}:periodic:#{name}"

          # In the queue's slot: the push takes it, the acknowledgement and the
          # outcome scripts release it, each in one script with the queue's keys.
          def unique_lock(queue, digest) = "#{tag(queue)}:unique:#{digest}"

          # In the queue's slot: settle.lua holds a job there as it leaves the
          # queue's in-flight hash, and the resume moves it back to the queue.
          def held(queue, name) = TagNames.held(tag(queue), name)

          # In the queue's slot, beside the queue and the scheduled set the
          # push script writes and removes the waiting job from.
          def collapse(queue, mode, digest) = TagNames.collapse(tag(queue), mode, digest)

          # In the slot of the queue whose jobs the push writes (one mark per
          # slot a push writes to).
          def push_mark(queue, id) = "#{tag(queue)}:push:#{id}"

          # In the queue's slot: a fair queue's tenants' jobs and tenants hash.
          def fair_jobs(queue) = TagNames.fair_jobs(tag(queue))

          def fair_tenants(queue) = TagNames.fair_tenants(tag(queue))

          # In the queue's slot: the list of its jobs of one priority level.
          def priority(queue, level) = TagNames.priority(tag(queue), level)

          def priorities(queue) = TagNames.priorities(tag(queue))

          # In the queue's slot: fetch.lua and requeue.lua keep it beside the queue.
          def throttle(queue) = "#{tag(queue)}:throttle"

          # Each limiter's keys share the tag {limit:<name>}, so its check
          # script runs in one slot and limiters spread over the shards. (A name
          # holding "}" cuts its tag short: its keys still share one slot.) The
          # index of names (LIMITS) is written apart, by Store::Scripts::LimitCheck.
          def limit(type, name) = "{limit:#{name}}:#{type}"

          def limit_wake(name) = "{limit:#{name}}:concurrent:wake"

          def limit_metrics(name) = "{limit:#{name}}:metrics"
        end

        extend Names
      end
    end
  end
end
