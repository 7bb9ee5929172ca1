# frozen_string_literal: true

require "json"
require_relative "../json_object"
require_relative "chunk_members"

module Deckhand
  class Store
    module Records
      # The record a server process keeps of itself, in Sidekiq's layout: its
      # identity in the `processes` set, the `<identity>` hash (what the process
      # is, refreshed each heartbeat with a TTL), the `<identity>:work` hash of
      # the jobs its threads run, and the `<identity>-signals` list the dashboard
      # pushes signals onto. The heartbeat writes it, the data API reads it, both
      # through this codec, so the layout lives here only. The process's thread
      # count is a field of its own ("concurrency", as Sidekiq 8.1.2 and later
      # write it and their API reads it over the info's) as well as in the info.
      #
      #   ProcessRecord.write(pipe, store.layout, identity, info: info_json, concurrency: 10, running: stats.running,
      #     inflight: 12, rtt_us: 850, quiet: false, rss_kb: 183_204, ttl: 40)
      #   ProcessRecord.identities(store)              # => ["host:123:9f3a", ...]
      #   ProcessRecord.read(store, identities)        # => [ProcessRecord::Entry or nil, ...]
      #   ProcessRecord.signal(store, identity, "TSTP")
      module ProcessRecord # :nodoc:
        FIELDS = %w[info busy beat quiet rss rtt_us inflight balance clock concurrency].freeze

        # How long a signal waits for a process that never picks it up.
        SIGNAL_TTL = 60

        # One process as its last heartbeat described it; `info` is a Hash
        # (empty when unreadable), `inflight` how many jobs it holds (running or
        # about to; 0 from a process that does not say, like Sidekiq).
        # `balance`: what auto-balance decided last (Server::Balance::Balancer#report), {} without it.
        # `clock_offset`: seconds Redis' clock was ahead of the process's host
        # (Store::Records::Clock), nil from a process that does not say.
        Entry = Struct.new(:identity, :info, :busy, :beat, :quiet, :rss_kb, :rtt_us, :inflight, :balance, :clock_offset)
        private_constant :Entry

        # One job a thread is running: `payload` is the job's JSON, or a Hash
        # where the writer stored an object (some Sidekiq versions).
        # `chunk`: for a chunk's members (docs/chunks.md), {"size" => n, "jids" =>
        # the first CHUNK_JIDS}; the payload is the first member's. (All the
        # members are in the process's ChunkMembers set.)
        Work = Struct.new(:thread, :queue, :payload, :run_at, :chunk)
        CHUNK_JIDS = 20

        module_function

        # Queues the record's writes on a pipeline. info: the JSON describing the
        # process (encoded once at boot: it does not change); concurrency: its
        # threads (nil: not written, as Sidekiq before 8.1.2); running: thread id
        # => anything answering queue, payload and run_at.
        # placement: the placement epoch the process follows (cluster mode;
        # Store::Tags::QueueMove waits for every process to reach a move's epoch);
        # balance: what auto-balance decided (Server::Balance::Balancer#report);
        # clock: seconds Redis' clock is ahead of this host's (Store::Records::Clock#offset);
        # chunks: the change to the set of every member of its chunks (added,
        # removed, fresh: Server::Chores::ChunkRoster::Change; ChunkMembers), nil for none.
        def write(pipe, keys, identity, info:, running:, inflight:, rtt_us:, quiet:, rss_kb:, ttl:, concurrency: nil, placement: nil,
          balance: nil, clock: nil, chunks: nil, now: Time.now)
          work = keys.work(identity)
          pipe.call("UNLINK", work)
          unless running.empty?
            # run_at is this host's time (Server::Chores::Activity stamps it per job):
            # the fleet's once the clock is off by more than noise. A job a
            # plugin described without one (drop-in's WORK_STATE) keeps none.
            shift = (clock && clock.abs >= Records::Clock::SYNCED) ? clock.round : 0
            fields = running.flat_map do |thread, job|
              run_at = job.run_at && job.run_at + shift
              entry = {"queue" => job.queue, "payload" => job.payload, "run_at" => run_at}
              chunk = job.chunk_jids if job.respond_to?(:chunk_jids) # (Enumerable has its own #chunk)
              entry["chunk"] = {"size" => chunk.size, "jids" => chunk.first(CHUNK_JIDS)} if chunk
              [thread, JSON.generate(entry)]
            end
            pipe.call("HSET", work, *fields)
            pipe.call("EXPIRE", work, ttl)
          end
          key = keys.process(identity)
          pipe.call("SADD", keys::PROCESSES, identity)
          pipe.call("HSET", key, "info", info, "busy", running.size, "inflight", inflight, "beat", now.to_f,
            "rtt_us", rtt_us, "quiet", quiet.to_s, "rss", rss_kb, *(concurrency ? ["concurrency", concurrency] : []),
            *(placement ? ["placement", placement] : []), *(clock ? ["clock", clock.round(4)] : []))
          pipe.call("HSET", key, "balance", JSON.generate(balance)) if balance
          pipe.call("EXPIRE", key, ttl)
          ChunkMembers.write(pipe, keys, identity, added: chunks.added, removed: chunks.removed, fresh: chunks.fresh, ttl: ttl) if chunks
        end

        # Queues a read of how many processes are registered (live or not yet pruned).
        def count(pipe, keys) = pipe.call("SCARD", keys::PROCESSES)

        # Queues taking the oldest signal sent to the process (its reply: the
        # signal's name, or nil).
        def take_signal(pipe, keys, identity) = pipe.call("RPOP", keys.signals(identity))

        # Queues a read of how many threads of the process are busy (its reply:
        # a String, or nil once the record expired).
        def busy(pipe, keys, identity) = pipe.call("HGET", keys.process(identity), "busy")

        # Asks a process to act (TSTP: quiet, TERM: stop); it picks the signal up
        # on its next heartbeat.
        # Sidekiq Enterprise's fleet leader, or nil (none in Sidekiq OSS, nor in a Deckhand fleet).
        def sidekiq_leader(store) = store.call("GET", store.layout.sidekiq_leader)

        def signal(store, identity, name)
          key = store.layout.signals(identity)
          store.pipelined do |pipe|
            pipe.call("LPUSH", key, name)
            pipe.call("EXPIRE", key, SIGNAL_TTL)
          end
          nil
        end

        # The signals sent to each process and not yet picked up, in one round
        # trip: [[name, ...], ...] in the order of `identities`.
        def pending_signals(store, identities)
          return [] if identities.empty?
          store.pipelined { |pipe| identities.each { |identity| pipe.call("LRANGE", store.layout.signals(identity), 0, -1) } }
        end

        def identities(store) = store.call("SMEMBERS", store.layout::PROCESSES).sort

        # One round trip: an Entry per identity, nil where its record expired.
        def read(store, identities)
          return [] if identities.empty?
          replies = store.pipelined do |pipe|
            identities.each { |identity| pipe.call("HMGET", store.layout.process(identity), *FIELDS) }
          end
          identities.zip(replies).map { |identity, fields| decode(identity, fields) }
        end

        # Drops identities from the set (processes whose record expired: they
        # died without cleaning up; a live one adds itself again each beat).
        def forget(store, identities)
          store.call("SREM", store.layout::PROCESSES, *identities) unless identities.empty?
        end

        # One round trip: for each identity, the Work of its busy threads.
        def work(store, identities)
          return [] if identities.empty?
          records = store.pipelined do |pipe|
            identities.each { |identity| pipe.call("HGETALL", store.layout.work(identity)) }
          end
          records.map { |record| record.map { |thread, raw| decode_work(thread, raw) } }
        end

        # A "concurrency" field wins over the info's (Sidekiq 8.1.2 and later
        # write it there alone).
        def decode(identity, fields)
          info, busy, beat, quiet, rss, rtt, inflight, balance, clock, concurrency = fields
          return nil if info.nil?
          info = JsonObject.record(info)
          info["concurrency"] = concurrency.to_i if concurrency
          Entry.new(identity, info, busy.to_i, beat && Time.at(beat.to_f), quiet == "true", rss.to_i, rtt.to_i,
            inflight.to_i, JsonObject.record(balance), clock&.to_f)
        end

        def decode_work(thread, raw)
          work = JsonObject.record(raw)
          chunk = work["chunk"] if work["chunk"].is_a?(Hash) && work["chunk"]["size"].is_a?(Integer) && work["chunk"]["jids"].is_a?(Array)
          Work.new(thread, work["queue"].to_s, work["payload"], work["run_at"].is_a?(Numeric) ? Time.at(work["run_at"]) : nil, chunk)
        end
      end
    end
  end
end
