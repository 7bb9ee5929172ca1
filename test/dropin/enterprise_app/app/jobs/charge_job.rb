# frozen_string_literal: true

class ChargeJob
  include Sidekiq::Job

  sidekiq_options encrypt: true, unique_for: 600, expires_in: 3600

  def perform(order_id, secrets) = Gateway.charge(order_id, secrets["card"])
end
