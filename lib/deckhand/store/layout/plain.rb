# frozen_string_literal: true

require_relative "untagged"
require_relative "sidekiq_names"
require_relative "plain_workflows"

module Deckhand
  class Store
    module Layout
      # The plain layout: one Redis, so every key hashes to the one place
      # that matters and a script may touch any of them. Every question of
      # "which key, which script, how many calls" a mode answers differently
      # is answered here and by Layout::Cluster, which responds to the same
      # methods (test/unit/store/layout/layout_test.rb holds them to it); `store.layout`
      # is the one for the store's mode.
      #
      # The unprefixed names are Sidekiq's layout, which Deckhand shares so
      # both can run against one Redis; the `deckhand:` ones are Deckhand's own
      # bookkeeping.
      #
      #   layout = Deckhand::Store::Layout::Plain
      #   layout.queue("default")                   # => "queue:default"
      #   layout.retry_set("default")               # => "retry"
      #   layout.set_keys(:retry_set, %w[a b])      # => [[nil, "retry"]]
      #   layout.script_calls([1], [0, 1, 2])       # => [[0, 1, 2]]: one call for every queue
      module Plain # :nodoc:
        QUEUES = "queues"
        SCHEDULE = "schedule"
        RETRY = "retry"
        DEAD = "dead"
        PROCESSES = "processes"
        PROCESSED = "stat:processed"
        FAILED = "stat:failed"
        # Jobs dropped unstarted because their expires_in passed (Deckhand's own
        # counter, kept like Sidekiq's: all time and per UTC day).
        EXPIRED = "stat:expired"

        # Hash of identity => JSON describing each process that owns in-flight jobs.
        # Unlike the process record it has no TTL: it is how a dead process is found.
        OWNERS = "deckhand:owners"

        # Short lock (SET NX PX) that lets one process's reaper act at a time.
        REAPER_LOCK = "deckhand:reaper:lock"

        # Periodic jobs: the leader's lease (its fenced token, with a TTL), the
        # counter the tokens' fence numbers come from, and the leader's schedule
        # (JSON). Each entry's state is a hash of its own (#periodic).
        PERIODIC_LEADER = "deckhand:periodic:leader"
        PERIODIC_FENCE = "deckhand:periodic:fence"
        PERIODIC_SCHEDULE = "deckhand:periodic:schedule"
        # Set of the periodic entries whose recorded tick is not pushed yet
        # (cluster mode only: see store/scripts/periodic/periodic_enqueue.lua).
        PERIODIC_PENDING = "deckhand:periodic:pending"

        # Zset of limiter name => last use (epoch ms), for the dashboard
        # (Store::Limits describes every limiter key).
        LIMITS = "deckhand:limits"

        # The prefix of the per-class metrics hashes (Store::Records::ExecutionMetrics).
        METRICS = "deckhand:metrics"

        extend SidekiqNames

        module_function

        # True: plain mode. Every key is in one place, so a script may touch
        # them all at once (the queues set, the fleet's records and every
        # queue's keys), and no queue has a placement to follow or move.
        # In cluster mode (Layout::Cluster) each queue has a slot of its own
        # and the fleet's records another.
        def plain? = true

        # False: one scheduled, retry and dead set for every queue.
        def sets_per_queue? = false

        # The sets of one kind (:scheduled_set, :retry_set or :dead_set) the
        # jobs of `queues` wait in, as [queue, key] pairs: the one set here,
        # paired with nil.
        def set_keys(kind, _queues) = [[nil, public_send(kind, nil)]]

        # The queue indexes each call of a script that takes many queues
        # covers, for work on `indexes` of `all`: one call for all of them.
        def script_calls(_indexes, all) = [all]

        # The batches' key names (Layout::PlainBatches).
        def batches = PlainBatches

        # The workflows' key names (Layout::PlainWorkflows).
        def workflows = PlainWorkflows

        # The fetch script's wrapper: one script call fetches from every
        # queue of a capsule.
        def fetch_script = Scripts::Fetch

        # Settles where `queues` live before many of their keys are named
        # (Layout::PlacedCluster reads their placements in one round trip);
        # here nothing needs settling.
        def place(_queues) = nil

        def queue(name) = "queue:#{name}"

        # List of a queue's jobs pushed with priority `level` (an Integer, not
        # 0: those wait in the queue itself), pushed on the left and taken
        # from the right as the queue is. Named as the queue "<name>~r<level>"
        # would be, so a Sidekiq process can be told to read it.
        def priority(name, level) = "queue:#{name}~r#{level}"

        # Set of the priority levels pushes used for a queue, which servers
        # read with their heartbeat to know which levels' lists to fetch.
        def priorities(name) = "deckhand:priorities:#{name}"

        # The sorted sets a job of `queue` waits in: one each for all queues here.
        def scheduled_set(_queue) = SCHEDULE

        def retry_set(_queue) = RETRY

        def dead_set(_queue) = DEAD

        def process(identity) = identity

        def work(identity) = "#{identity}:work"

        def signals(identity) = "#{identity}-signals"

        # Set of the jids of the chunks' members a process runs
        # (Store::Records::ChunkMembers), all of them: its work record lists
        # a chunk's first 20 only. Written by the heartbeat as chunks start
        # and end, with the process record's TTL.
        def chunk_members(identity) = "deckhand:chunk-members:#{identity}"

        # Hash of the lots a process took from `queue` and has not finished:
        # lot id => its number of jobs, and "<lot id>~" => the bitmap of those
        # already settled (see Store::Inflight::LotBits). An entry leaves only once every job
        # of its lot has its outcome in Redis.
        def inflight(identity, queue) = "deckhand:inflight:#{identity}:#{queue}"

        # List of the payloads of one lot (the jobs one fetch took from `queue`),
        # in the order they were taken. Part of the in-flight record.
        def lot(identity, queue, id) = "deckhand:lot:#{identity}:#{queue}:#{id}"

        # List a blocking fetch moves a job into when the process was idle; the next
        # fetch files it into the in-flight hash. Part of the in-flight record.
        def landing(identity, queue) = "deckhand:landing:#{identity}:#{queue}"

        # Hash of jid => how many times the job was recovered from a process
        # that died while it may have been running it, for the jobs of `queue`;
        # field "~v" counts recoveries, so a process sees a change in one read.
        # Expires a day after the last recovery.
        def recoveries(queue) = "deckhand:recoveries:#{queue}"

        # Set of the jids of suspects (jobs recovered before) this process is
        # running now from `queue`: what pins its next crash on the right jobs.
        def suspects(identity, queue) = "deckhand:suspects:#{identity}:#{queue}"

        # Hash of "<identity>|<jid>" => payload: poison pills of `queue` taken out
        # of a dead process's in-flight record, waiting to be written to the dead set.
        def poison(queue) = "deckhand:poison:#{queue}"

        # String: a job's cancel mark (Store::Jobs::Cancellations), JSON with
        # "at" (when it was cancelled) and "grace" (seconds a running job is
        # given before it is interrupted). A server process reads the marks of
        # the jobs it runs with each heartbeat. Expires a day after the cancel.
        def cancel_mark(jid) = "deckhand:cancel:#{jid}"

        # String: what became of a cancelled job, JSON with "jid", "class",
        # "queue", "where" (queue, schedule, retry, dead or running) and "at".
        # Expires a day after it was written.
        def cancelled(jid) = "deckhand:cancelled:#{jid}"

        # Hash of a periodic entry's state: last_tick (epoch seconds of the
        # last tick enqueued), last_jid, last_at, since (ticks at or before it
        # never run), paused, next (the leader's next tick); in cluster mode,
        # while its push is pending, pending_queue, pending_tick, pending_jid
        # and pending_payload (store/scripts/periodic/periodic_enqueue.lua).
        def periodic(name) = "deckhand:periodic:entry:#{name}"

        # List of a periodic entry's last ticks, newest first, capped
        # (JSON each: tick, jid, state, at...; store/scripts/periodic/periodic_history.lua).
        def periodic_history(name) = "deckhand:periodic:history:#{name}"

        # String: the latest tick of a periodic entry pushed to `queue` (cluster
        # mode only: see store/scripts/periodic/periodic_push.lua).
        def periodic_pushed(queue, name) = "deckhand:periodic:pushed:#{queue}:#{name}"

        # String holding the jid of the unique job (Deckhand::Unique) that owns
        # the lock `digest` (SHA-256 hex of its class, queue and arguments).
        def unique_lock(_queue, digest) = "unique:#{digest}"

        # Sorted set of the fetched jobs of a paused class (`name`) from
        # `queue`, as they were fetched, scored by when each was held
        # (Store::Jobs::HeldClasses): they go back to the queue on resume.
        def held(queue, name) = "deckhand:held:#{queue}:#{name}"

        # Hash of the job a debounced or deduplicated push (Deckhand::Collapsing)
        # left waiting under `digest` (SHA-256 hex of its class, queue and
        # key): "jid" and "payload", the bytes a later push of the same key
        # finds in the schedule or the queue. Expires with the key's window.
        def collapse(_queue, mode, digest) = "deckhand:#{mode}:#{digest}"

        # String: the mark a push written as one transaction leaves for a few
        # minutes (Store::MarkedPush), by which Redis answers, after the
        # reply was lost, whether it ran the write. `id` is the push's own.
        def push_mark(_queue, id) = "deckhand:push:#{id}"

        # Sorted set of the jobs of a fair queue's tenants, and the hash of its
        # virtual time and tenants with work (store/scripts/lib/fair.lua).
        def fair_jobs(queue) = "deckhand:fair:#{queue}"

        def fair_tenants(queue) = "deckhand:tenants:#{queue}"

        # Hash of a throttled queue's state, which fetch.lua keeps
        # (store/scripts/lib/throttle.lua).
        def throttle(queue) = "deckhand:throttle:#{queue}"

        # A limiter's state, under its type and name: two limiters of different
        # types never share state.
        def limit(type, name) = "deckhand:limit:#{type}:#{name}"

        # List a concurrent limiter's waiters block on (BLPOP); each release feeds it.
        def limit_wake(name) = "deckhand:limit:concurrent:#{name}:wake"

        # Hash of a limiter's counters, for the dashboard.
        def limit_metrics(name) = "deckhand:limit:metrics:#{name}"
      end
    end
  end
end
