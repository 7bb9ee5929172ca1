# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # settle.lua: writes a job's outcome (to the retry, schedule or dead set,
      # a paused class's held set, or nowhere when it is dropped) and marks it settled where it sits in
      # the in-flight record, in one atomic step. `where` says where that is:
      # [:lot, lot id, position] or [:landing, payload] (a job an idle waiter
      # landed and handed out at once).
      #
      #   settle = Settle.new(store, identity: "host:1:abc", queue: "default")
      #   settle.retry([:lot, 42, 3], at: Time.now.to_f + 30, payload: json)   # => :written
      #   settle.drop([:landing, raw])                                          # => :written
      #
      # Each returns :written; :settled when the job was settled already (a
      # call repeated after its reply was lost: nothing is written twice); or
      # :gone when the job is no longer in this process's in-flight record
      # (handed back, or recovered by another process that took this one for
      # dead): it runs again, and this outcome is not written. A refusal by
      # Redis raises before the job left its place: call again.
      #
      # The sets are those of `queue` (the job's in-flight queue): one set
      # each in plain mode, the queue's own shards in cluster mode, in the
      # in-flight hash's slot, so an outcome stays one script call.
      class Settle < Script # :nodoc:
        lua "fetch/settle", uses: ["lot"]

        RESULTS = {1 => :written, 2 => :settled, 0 => :gone}.freeze

        # The keys are named at each call (an outcome is rare next to a
        # fetch): a queue moved to another shard (Store::Tags::QueueMove) writes
        # its outcomes under its new tag.
        def initialize(store, identity:, queue:)
          super(store)
          @identity = identity
          @queue = queue
        end

        def retry(where, at:, payload:) = outcome(where, keys.retry_set(@queue), [score(at), payload])

        def reschedule(where, at:, payload:) = outcome(where, keys.scheduled_set(@queue), [score(at), payload])

        # To the dead set, trimmed as Sidekiq trims it: entries older than
        # `timeout` seconds and the oldest beyond `max_jobs` go (in cluster
        # mode, of the queue's own dead set: the bound is per queue).
        # `unlock`: [key, jid] of the unique lock that goes with the job.
        def bury(where, payload:, now:, timeout:, max_jobs:, unlock: nil)
          outcome(where, keys.dead_set(@queue), [score(now), payload, score(now - timeout), max_jobs], unlock)
        end

        def drop(where, unlock: nil) = outcome(where, nil, [], unlock)

        # Holds a fetched job of a paused class (`name`) as it was fetched
        # (Store::Jobs::HeldClasses), scored `at`, until the class resumes.
        def hold(where, name, at:, payload:) = outcome(where, keys.held(@queue, name), [score(at), payload])

        private

        def outcome(where, set, rest, unlock = nil)
          kind, id, position = where
          place = (kind == :landing) ? keys.landing(@identity, @queue) : keys.inflight(@identity, @queue)
          list = [place, set].compact
          argv = [kind.to_s, id, position.to_s, *rest]
          if unlock
            list << unlock[0]
            argv.fill("", argv.size...7) << unlock[1]
          end
          RESULTS.fetch(run(list, argv))
        end

        # Scores kept to the millisecond, in Ruby's shortest exact form.
        def score(seconds) = seconds.round(3).to_s
      end
    end
  end
end
