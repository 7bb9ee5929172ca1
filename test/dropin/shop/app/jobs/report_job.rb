# frozen_string_literal: true

require_relative "shop"

module Shop
  # Nightly figures, on their own single-threaded capsule.
  class ReportJob
    include Sidekiq::Job

    sidekiq_options queue: "reports", retry: false

    def self.for_days(days) = perform_bulk(days.zip)

    def perform(day)
      Shop.record("report", day)
    end
  end
end
