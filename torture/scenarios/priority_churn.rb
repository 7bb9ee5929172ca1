# frozen_string_literal: true

require_relative "sigkill_churn"

module Torture
  # 19. Scenario 1 with jobs at three priorities (docs/priority.md): a third
  # pushed at -5, a third without one, a third at 5, in turns of a thousand,
  # so each server fetches from the levels' lists and the queue's own in one
  # step while one of them is SIGKILLed every few seconds and started again
  # (its jobs go back to the front of the queue's own list). Nothing may be
  # lost, nothing may stay in flight or at any level at the end.
  class PriorityChurn < SigkillChurn
    NUMBER = 19
    NAME = "priority-churn"
    LEVELS = [-5, nil, 5].freeze

    private

    def push_work(client, durations_ms, queue: "default")
      durations_ms.each_slice(1000).with_index.flat_map do |slice, n|
        level = LEVELS[n % LEVELS.size]
        jids = client.push_bulk("class" => "Torture::WorkJob", "args" => slice.zip, "queue" => queue, **(level ? {"priority" => level} : {}))
        @ledger.enqueued(jids)
        jids
      end
    end

    def figures(books, kills, jobs, leftover, redis)
      left = LEVELS.compact.sum { |level| redis.call("LLEN", "queue:default~r#{level}") }
      check(left.zero?, "#{left} jobs left at a priority level")
      super.merge("levels" => LEVELS.size, "left_at_levels" => left)
    end
  end
end
