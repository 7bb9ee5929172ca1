# frozen_string_literal: true

module Deckhand
  class Store
    module Features
      # The saved progress of iterable jobs (Deckhand::IterableJob), at
      # `it-<jid>` in Sidekiq's layout, so a job interrupted by either resumes
      # on the other. Every write renews the 30-day expiry: the state must
      # outlive the longest wait for a retry. Field "dh_steps" is Deckhand's own
      # (the steps its runs made, for the dashboard); so is "dh_runs", the JSON
      # history of its last runs (IterableJob::RunHistory), written only by the
      # save that ends a run. Sidekiq leaves both alone.
      #
      #   Iterations.load(store, jid)        # => {"ex" => "2", "c" => "41", "rt" => "3.2"} or {}
      #   Iterations.flush(store, jid, executions: 2, cursor: "41", runtime: 3.2, steps: 41) # => cancelled at, or nil
      #   Iterations.flush(store, jid, ..., runs: '[{"run":1,"reason":"shutdown",...}]') # a run's end
      #   Iterations.cancel!(store, jid, now: Time.now.to_i) # => when it was (first) cancelled
      #   Iterations.delete(store, jid)
      module Iterations # :nodoc:
        TTL = 30 * 24 * 60 * 60

        module_function

        def load(store, jid) = store.call("HGETALL", store.layout.iteration(jid))

        def load_many(store, jids)
          return [] if jids.empty?
          store.pipelined { |pipe| jids.each { |jid| pipe.call("HGETALL", store.layout.iteration(jid)) } }
        end

        # Writes the progress (and, at a run's end, the history of runs) and
        # reads the cancellation flag in one transaction.
        def flush(store, jid, executions:, cursor:, runtime:, steps:, runs: nil)
          key = store.layout.iteration(jid)
          fields = ["ex", executions.to_s, "c", cursor, "rt", runtime.to_s, "dh_steps", steps.to_s]
          fields.push("dh_runs", runs) if runs
          replies = store.multi do |tx|
            tx.call("HSET", key, *fields)
            tx.call("EXPIRE", key, TTL)
            tx.call("HGET", key, "cancelled")
          end
          replies.last
        end

        def cancelled(store, jid) = store.call("HGET", store.layout.iteration(jid), "cancelled")

        # Marks the job cancelled (the first time counts) and returns when.
        def cancel!(store, jid, now:)
          key = store.layout.iteration(jid)
          replies = store.pipelined do |pipe|
            pipe.call("HSETNX", key, "cancelled", now.to_s)
            pipe.call("HGET", key, "cancelled")
            pipe.call("EXPIRE", key, TTL)
          end
          replies[1].to_i
        end

        def delete(store, jid) = store.call("UNLINK", store.layout.iteration(jid))
      end
    end
  end
end
