# frozen_string_literal: true

require_relative "queue_placement"
require_relative "collapse_record_move"
require_relative "../scripts/move/queue_move_batch"
require_relative "../jobs/priority_pushes"

module Deckhand
  class Store
    module Tags
      # Cluster mode: jobs pushed under a tag a queue move retired, by a
      # process that does not follow placement (an earlier Deckhand version,
      # docs/cluster.md "Out-of-date processes"), go to the queue's current
      # tag, list, a fair queue's tenants' jobs, priority levels' lists (each
      # level named under the current tag first) and scheduled, retry and
      # dead sets, batch by batch as a move
      # copies them (Scripts::QueueMoveBatch: each job written once). Under the
      # move lock, so one process sweeps at a time and never during a move.
      #
      # The records of debounced and deduplicated keys such a process wrote
      # beside its jobs (Deckhand::Collapsing) follow them as a move carries
      # them (CollapseRecordMove: with the time each had left, a record a push
      # already wrote under the current tag settled with), so a push of the
      # key under the current tag still collapses with the swept job. No set
      # names them and finding them takes a SCAN of the cluster, so a tag's
      # records are looked for when jobs were swept from it, and once per
      # sweeper for each retired tag (those left by a sweep cut short, or by
      # a version that did not carry them).
      #
      #   Deckhand::Store::Tags::RetiredSweep.new(store).call   # => {"mail" => 3} (jobs and entries moved, by queue)
      class RetiredSweep # :nodoc:
        LOCK_TTL = 60

        def initialize(store)
          @store = store
          @records = CollapseRecordMove.new(store)
          @looked = {} # the retired tags whose records this sweeper looked for
        end

        def call = Moves.holding(@store, LOCK_TTL) { |token| sweep(Moves.retired(@store), token) } || {}

        private

        Moves = Tags::QueuePlacement::Moves

        def sweep(retired, token)
          return {} if retired.empty?
          current = @store.call("HMGET", Tags::QueuePlacement::KEY, *retired.values)
          batch = Scripts::QueueMoveBatch.new(@store)
          moved = Hash.new(0)
          retired.zip(current).each do |(tag, queue), now|
            next if now.nil? || now == tag
            swept = moved[queue]
            (sources(tag).zip(sources(now)) + levels(tag, now)).each do |(from, kind), (to, _)|
              while (taken = batch.call(from, to, kind: kind, limit: Tags::QueueMove::BATCH)).positive?
                moved[queue] += taken
              end
            end
            carry_records(tag, now, token) if moved[queue] > swept || !@looked[tag]
          end
          moved
        end

        # After the jobs, as a move does: a debounced record is settled
        # against the scheduled set under `now`, where its job is by then.
        def carry_records(tag, now, token)
          @records.call(tag, now) { Moves.prolong(@store, token, LOCK_TTL) }
          @looked[tag] = true
        end

        # What a sweep moves from each tag, and how: the queue's list and its
        # tenants' jobs (named by the tag itself, Scripts::QueueMoveBatch),
        # then its scheduled, retry and dead sets.
        def sources(tag) = [[tag, "list"], [tag, "fair"], *Layout::TagNames::SETS.map { |set| [Layout::TagNames.set(tag, set), "zset"] }]

        # The lists of the levels a push named under `tag`, paired with
        # theirs under `now`, each level named there first so servers fetch it.
        def levels(tag, now)
          levels = Jobs::PriorityPushes.parse(@store.call("SMEMBERS", Layout::TagNames.priorities(tag)))
          return [] if levels.empty?
          @store.call("SADD", Layout::TagNames.priorities(now), *levels)
          levels.map { |level| [[Layout::TagNames.priority(tag, level), "list"], [Layout::TagNames.priority(now, level), "list"]] }
        end
      end
    end
  end
end
