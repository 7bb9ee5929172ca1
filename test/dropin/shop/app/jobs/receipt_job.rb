# frozen_string_literal: true

require_relative "shop"

module Shop
  # Sends an order's receipt.
  class ReceiptJob
    include Sidekiq::Job

    sidekiq_options queue: "mailers", retry: 3

    def perform(order_id, email)
      Shop.record("receipt", order_id, email, jid)
    end
  end
end
