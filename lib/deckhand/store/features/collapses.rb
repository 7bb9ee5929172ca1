# frozen_string_literal: true

require_relative "../scripts/push/collapse_push"

module Deckhand
  class Store
    module Features
      # Debounced and deduplicated pushes (Deckhand::Collapsing): written with
      # their records in one script, and the records read for the data API.
      #
      #   Collapses.push(store, "default", [[claim, jid, nil, json]])   # => [[true, nil]]
      #   Collapses.record(store, "deckhand:debounce:ab12...")         # => ["b4a5...", json, 4_200] (jid, payload, ms left)
      module Collapses # :nodoc:
        module_function

        # jobs: [Collapsing::Claim, jid, at or nil, payload], all for `queue`.
        # Returns, per job, [pushed, other jid or nil] (Scripts::CollapsePush).
        def push(store, queue, jobs) = Scripts::CollapsePush.new(store).call(queue, jobs)

        # [jid, payload, ms left] of the job a key's record names, or nil.
        def record(store, key)
          (jid, payload), ttl = store.pipelined do |pipe|
            pipe.call("HMGET", key, "jid", "payload")
            pipe.call("PTTL", key)
          end
          jid && [jid, payload, ttl]
        end
      end
    end
  end
end
