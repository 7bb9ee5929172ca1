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
      RENAMED = {"dead_timeout_in_seconds" => "dead_timeout", "average_scheduled_poll_interval" => "scheduler_interval"}.freeze

      module_function

      def normalize(data)
        data.to_h do |key, value|
          key = RENAMED.fetch(key.to_s, key.to_s)
          value = normalize(value) if value.is_a?(Hash)
          value = queues(value) if key == "queues" && value.is_a?(Array)
          [key, value]
        end
      end

      def queues(list) = list.map { |entry| entry.is_a?(Array) ? entry.join(",") : entry.to_s }
    end
  end
end
