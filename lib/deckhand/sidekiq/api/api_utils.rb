# frozen_string_literal: true

module Sidekiq
  # Sidekiq 8's helper for the data API's classes: how long a job has
  # waited, from its enqueued_at (or created_at) in either format a fleet
  # writes (Integer milliseconds, Sidekiq 8; Float seconds, Sidekiq 7).
  #
  #   include Sidekiq::ApiUtils
  #   calculate_latency("enqueued_at" => Time.now.to_f - 5)   # => 5.0
  module ApiUtils
    def calculate_latency(job)
      stamp = job["enqueued_at"] || job["created_at"] or return 0.0
      Time.now.to_f - Deckhand::Payload.to_time(stamp).to_f
    end
  end
end
