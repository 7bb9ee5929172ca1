# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # unique_push.lua: pushes jobs of one queue, each with its unique lock
      # (Deckhand::Unique), in one round trip; a job whose lock is held by
      # another is not pushed.
      #
      #   UniquePush.new(store).call("default", [[lock, nil, json]])   # => [nil]       (pushed)
      #   UniquePush.new(store).call("default", [[lock, nil, json]])   # => ["b4a5..."] (the holder)
      class UniquePush < Script
        lua "unique_push"

        # jobs: [Unique::Lock, scheduled time (epoch seconds) or nil, payload].
        # Returns, per job, nil when pushed or the jid that holds its lock.
        def call(queue, jobs)
          list = [keys::QUEUES, keys.queue(queue), keys::SCHEDULE]
          argv = [queue]
          jobs.each do |lock, at, payload|
            list << lock.key
            argv.push(lock.jid, lock.ttl_ms, at ? at.round(3).to_s : "", payload)
          end
          run(list, argv).map { |holder| (holder.nil? || holder.empty?) ? nil : holder }
        end
      end
    end
  end
end
