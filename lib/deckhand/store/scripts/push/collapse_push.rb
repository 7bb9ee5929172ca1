# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # collapse_push.lua: pushes debounced and deduplicated jobs of one
      # queue (Deckhand::Collapsing), each with its record, in one round
      # trip; a later push of a key replaces or leaves the job the key's
      # record names. With push_replicas set it WAITs for the replicas
      # (Script#run_durably).
      #
      #   claim = Deckhand::Collapsing::Claim.new("debounce", "deckhand:debounce:ab..", 5_000, 3_605_000)
      #   CollapsePush.new(store).call("default", [[claim, "b4a5..", nil, json]])   # => [[true, nil]]
      #   CollapsePush.new(store).call("default", [[claim, "c7d2..", nil, json2]])  # => [[true, "b4a5.."]] (replaced)
      #
      # In cluster mode the script touches the queue's slot only; the queue
      # is registered in the set of queue names by a command of its own
      # first (Script#push_keys).
      class CollapsePush < Script # :nodoc:
        lua "push/collapse_push", uses: ["guard", "push"]

        # jobs: [Collapsing::Claim, jid, scheduled time (epoch seconds) or
        # nil, payload]. Returns, per job, [pushed, other jid or nil]: the
        # jid it replaced when pushed, the jid waiting in its stead when not.
        def call(queue, jobs)
          list = push_keys(queue)
          argv = [queue]
          jobs.each do |claim, jid, at, payload|
            list << claim.key
            argv.push(claim.mode, jid, claim.span_ms, claim.life_ms, at ? at.round(3).to_s : "", payload)
          end
          reply = run_durably(list, argv) { |flat| flat.each_slice(2).zip(jobs).filter_map { |(pushed, _), job| job[1] if pushed == "1" } }
          reply.each_slice(2).map { |pushed, other| [pushed == "1", other.to_s.empty? ? nil : other] }
        end
      end
    end
  end
end
