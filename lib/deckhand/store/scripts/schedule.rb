# frozen_string_literal: true

require "json"

module Deckhand
  class Store
    module Scripts
      # schedule.lua and the read before it: finds the due entries of the
      # schedule and retry sets, reads each one's queue, then moves them with
      # the script, every queue it pushes to declared. Two round trips when
      # something is due, one when nothing is.
      #
      #   schedule = Schedule.new(store)
      #   moved, corrupt, earliest = schedule.call(now: Time.now.to_f, limit: 100, stamp: 1732000000000)
      class Schedule < Script
        lua "schedule"

        SETS = [Keys::SCHEDULE, Keys::RETRY].freeze

        # Moves up to `limit` due entries of each set; returns [moved,
        # corrupt, earliest score still waiting or nil].
        def call(now:, limit:, stamp:)
          due, earliest = read(now, limit)
          moved = corrupt = 0
          due.each do |set, entries|
            next if entries.empty?
            m, c = move(set, entries, now, stamp)
            moved += m
            corrupt += c
          end
          [moved, corrupt, earliest]
        end

        private

        def read(now, limit)
          at = now.round(3).to_s
          replies = @store.pipelined do |pipe|
            SETS.each do |set|
              pipe.call("ZRANGE", set, "-inf", at, "BYSCORE", "LIMIT", 0, limit)
              pipe.call("ZRANGE", set, 0, 0, "WITHSCORES")
            end
          end
          due = SETS.each_with_index.to_h { |set, i| [set, replies[2 * i]] }
          scores = SETS.each_index.filter_map { |i| first_score(replies[(2 * i) + 1]) }
          [due, scores.min]
        end

        def move(set, entries, now, stamp)
          queues = []
          triples = entries.flat_map do |raw|
            job = parse(raw)
            next [raw, 0, "0"] unless job
            index = queues.index(job["queue"]) || (queues << job["queue"]).size - 1
            [raw, index + 1, job.key?("enqueued_at") ? "0" : "1"]
          end
          list = [set, keys::DEAD, keys::QUEUES, *queues.map { |q| keys.queue(q) }]
          run(list, [stamp, now.round(3).to_s, queues.size, *queues, *triples])
        end

        # A job has a class and a non-empty queue name; anything else is corrupt.
        def parse(raw)
          job = JSON.parse(raw)
          return nil unless job.is_a?(Hash) && job.key?("class")
          queue = job["queue"]
          (queue.is_a?(String) && !queue.empty? && raw.rstrip.end_with?("}")) ? job : nil
        rescue JSON::ParserError
          nil
        end

        # ZRANGE WITHSCORES answers [[member, score]] over RESP3, [member, score] over RESP2.
        def first_score(reply)
          return nil if reply.empty?
          Float(reply.first.is_a?(Array) ? reply.first[1] : reply[1])
        end
      end
    end
  end
end
