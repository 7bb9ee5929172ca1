# frozen_string_literal: true

require "json"

module Deckhand
  class Store
    module Jobs
      # The pushes of jobs with a priority (docs/priority.md): a job whose
      # "priority" is an Integer other than 0 waits in its level's list beside
      # the queue (Layout::Plain.priority), which the fetch reads before the
      # queue (levels below 0) or after it (levels above 0); every other job
      # waits in the queue as ever, so a queue nobody pushes priorities to
      # keeps Sidekiq's layout and its fetch cost.
      #
      # Servers learn a queue's levels from its set of levels
      # (Layout::Plain.priorities), read with their heartbeat. Each push names
      # its levels there in the same round trip, before its jobs (Jobs::HeldPush.plan):
      # a level someone deleted is named again by the next push. Writing it is
      # bookkeeping, as the set of queue names is: when Redis refuses it
      # (a key of another type) the jobs are written all the same, and the push
      # warns (Jobs::LevelWarning) rather than raise and have them pushed twice.
      #
      #   queued, levels = PriorityPushes.split({"default" => [json, ...]})
      #   # => [{"default" => [json without a priority, ...]}, {"default" => {-5 => [json, ...]}}]
      #   PriorityPushes.parse(["3", "-5"])   # => [-5, 3]
      module PriorityPushes # :nodoc:
        # Only a payload holding this may have a priority: the others skip the parse.
        MARK = "\"priority\":"
        NONE = {}.freeze

        module_function

        # Splits queued (queue => [json, ...]) into the payloads that wait in
        # their queue (same queues) and queue => {level => [json, ...]}.
        def split(queued)
          return [queued, NONE] unless any?(queued)
          levels = {}
          plain = queued.to_h do |queue, payloads|
            kept = []
            payloads.each do |json|
              level = level_of(json)
              next kept << json if level.nil? || level.zero?
              ((levels[queue] ||= {})[level] ||= []) << json
            end
            [queue, kept]
          end
          [plain, levels]
        end

        # Whether a payload of queued may have a priority: a plain push asks
        # first and skips #split's pair.
        def any?(queued) = queued.any? { |_, payloads| payloads.any? { |json| json.include?(MARK) } }

        # queued with the jobs of `levels` back in their queues, as pushed.
        def joined(queued, levels)
          return queued if levels.empty?
          queued.merge(levels.transform_values { |by_level| by_level.values.flatten(1) }) { |_, plain, more| plain + more }
        end

        def level_of(json)
          return nil unless json.include?(MARK)
          job = JSON.parse(json)
          level = job["priority"] if job.is_a?(Hash)
          level.is_a?(Integer) ? level : nil
        rescue JSON::ParserError
          nil
        end

        # The members of a queue's set of levels, lowest first.
        def parse(members) = members.filter_map { |member| Integer(member, exception: false) }.sort
      end
    end
  end
end
