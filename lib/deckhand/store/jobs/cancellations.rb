# frozen_string_literal: true

require "json"
require_relative "queues"
require_relative "../records/process_record"
require_relative "../records/chunk_members"
require_relative "../scripts/cancel/cancel_take"
require_relative "../json_object"

module Deckhand
  class Store
    module Jobs
      # The Redis side of cancelling a job by jid (docs/cancelling.md): its
      # cancel mark, finding it where it waits, taking it out (cancel_take.lua),
      # finding it among the jobs running, and the record of what became of it.
      # A search reads in pages and never holds Redis for long; the take is
      # atomic and acts only on the exact entry found, so a job that moved
      # meanwhile is looked for again, never taken twice.
      #
      #   Cancellations.mark(store, jid, grace: 10, at: 1732000000.0)
      #   raw = Cancellations.find_in_list(store, store.layout.queue("default"), jid)
      #   Cancellations.take(store, store.layout.queue("default"), raw, record)  # => true
      #   Cancellations.read(store, jid)   # => {"jid" => ..., "where" => "queue", ...}
      module Cancellations # :nodoc:
        # How long a mark and a record live: a day.
        TTL = 24 * 60 * 60
        # Entries read per round trip of a search.
        PAGE = 1_000

        module_function

        # Sets the job's cancel mark (again, for a later cancel: the last grace wins).
        def mark(store, jid, grace:, at:)
          store.call("SET", store.layout.cancel_mark(jid), JSON.generate("at" => at, "grace" => grace), "EX", TTL)
        end

        def unmark(store, jid) = store.call("DEL", store.layout.cancel_mark(jid))

        # Queues on a pipeline the read of the marks of `jids` (one MGET, one
        # slot in either mode); #marked reads its reply.
        def read_marks(pipe, layout, jids) = pipe.call("MGET", *jids.map { |jid| layout.cancel_mark(jid) })

        # {jid => grace (seconds, or nil for the default)} of the marked among `jids`.
        def marked(jids, reply)
          jids.zip(reply).each_with_object({}) do |(jid, raw), found|
            next unless raw
            grace = JsonObject.parse(raw)&.[]("grace")
            found[jid] = grace.is_a?(Numeric) ? grace : nil
          end
        end

        # Those of `jids` whose cancel mark is set.
        def marked_among(store, jids)
          return [] if jids.empty?
          jids.zip(store.call("MGET", *jids.map { |jid| store.layout.cancel_mark(jid) })).filter_map { |jid, mark| jid if mark }
        end

        # The entry of `key` (a queue's list) that is the job `jid`, or nil.
        # Read from the newest end, where pushes add: a push meanwhile moves
        # the entries read so far further along, so none is ever skipped.
        def find_in_list(store, key, jid)
          from = 0
          loop do
            page = store.call("LRANGE", key, from, from + PAGE - 1)
            found = page.find { |raw| job?(raw, jid) } and return found
            return nil if page.size < PAGE
            from += PAGE
          end
        end

        # The entry of the sorted set `key` that is the job `jid`, or nil.
        def find_in_set(store, key, jid)
          pattern = "*#{jid.gsub(/[\\*?\[\]]/) { |c| "\\#{c}" }}*"
          cursor = "0"
          loop do
            cursor, entries = store.call("ZSCAN", key, cursor, "MATCH", pattern, "COUNT", PAGE)
            entries.each_slice(2) { |raw, _score| return raw if job?(raw, jid) }
            return nil if cursor == "0"
          end
        end

        # The identity of the process whose heartbeat says it runs the job,
        # or nil. A chunk's member is found in its process's set of chunk
        # members (Records::ChunkMembers), whatever its place in its chunk,
        # or among the first ones its work entry lists (all a process of an
        # earlier version tells).
        def running(store, jid)
          identities = Records::ProcessRecord.identities(store)
          identities.zip(Records::ProcessRecord.work(store, identities)).each do |identity, works|
            works.each do |work|
              payload = work.payload
              found = payload.is_a?(Hash) ? payload["jid"] : Queues.jid_of(payload.to_s)
              return identity if found == jid || work.chunk&.fetch("jids")&.include?(jid)
            end
          end
          Records::ChunkMembers.holder(store, identities, jid)
        end

        # Takes the exact entry `raw` out of `source` and records the
        # cancellation (record: a Hash, see Layout::Plain#cancelled). True
        # when this call took it.
        def take(store, source, raw, record)
          taken = Scripts::CancelTake.new(store).call(source, raw, jid: record["jid"], record: record, ttl: TTL)
          write(store, record) if taken && !store.layout.plain?
          taken
        end

        # Records a cancellation; unmark: removes the job's mark too.
        def write(store, record, unmark: true)
          layout = store.layout
          store.pipelined do |pipe|
            pipe.call("SET", layout.cancelled(record["jid"]), JSON.generate(record), "EX", TTL)
            pipe.call("DEL", layout.cancel_mark(record["jid"])) if unmark
          end
          nil
        end

        # The record of the job's cancellation, or nil.
        def read(store, jid) = JsonObject.parse(store.call("GET", store.layout.cancelled(jid)))

        def job?(raw, jid) = raw.include?(jid) && Queues.jid_of(raw) == jid
      end
    end
  end
end
