# frozen_string_literal: true

module Deckhand
  class CLI
    # Reads Sidekiq's config/sidekiq.yml conventions into Deckhand's config
    # file settings, so `deckhand -C config/sidekiq.yml` takes the file as is:
    # symbol keys (`:concurrency: 5`), queues as names or [name, weight]
    # pairs, and Sidekiq's names for the settings Deckhand calls otherwise.
    #
    #   SidekiqYaml.normalize({concurrency: 5, queues: [["critical", 2], "default"]})
    #   # => {"concurrency" => 5, "queues" => ["critical,2", "default"]}
    module SidekiqYaml
      SCHEDULE = %w[scheduler schedule].freeze
      RENAMED = {"dead_timeout_in_seconds" => "dead_timeout", "average_scheduled_poll_interval" => "scheduler_interval"}.freeze

      module_function

      def normalize(data)
        normalized = data.to_h do |key, value|
          key = RENAMED.fetch(key.to_s, key.to_s)
          value = normalize(value) if value.is_a?(Hash) && !SCHEDULE.include?(key)
          value = queues(value) if key == "queues" && value.is_a?(Array)
          [key, value]
        end
        schedule(normalized)
      end

      # sidekiq-scheduler's `:scheduler: :schedule:` (or `:schedule:`) is read
      # into periodic jobs (Config::PeriodicSchedule#load_sidekiq_schedule), not dropped.
      def schedule(data)
        found = data.slice(*SCHEDULE)
        return data if found.empty?
        periodic = data["periodic"].is_a?(Hash) ? data["periodic"] : {}
        data.except(*SCHEDULE).merge("periodic" => periodic.merge("sidekiq_schedule" => found))
      end

      def queues(list) = list.map { |entry| entry.is_a?(Array) ? entry.join(",") : entry.to_s }
    end
  end
end
