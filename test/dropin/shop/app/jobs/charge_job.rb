# frozen_string_literal: true

require_relative "shop"

module Shop
  class PaymentDeclined < StandardError; end

  # Charges a card; a declined card retries twice at once, then gives up.
  class ChargeJob
    include Sidekiq::Worker

    sidekiq_options queue: "critical", retry: 2, backtrace: 5
    sidekiq_retry_in { |_count, _error, _job| 0 }
    sidekiq_retries_exhausted { |job, error| Shop.record("exhausted", job["args"].first, error.message) }

    def perform(order_id, amount_cents)
      raise PaymentDeclined, "card declined for order #{order_id}" if amount_cents.negative?
      Shop.record("charged", order_id, amount_cents)
      ReceiptJob.perform_async(order_id, "buyer-#{order_id}@example.com")
    end
  end
end
