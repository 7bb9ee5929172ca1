# frozen_string_literal: true

class ErpJob
  include Sidekiq::Job

  sidekiq_options lock: :while_executing, on_conflict: :reschedule

  ERP = Sidekiq::Limiter.concurrent("erp", 5)

  def perform(id) = ERP.within_limit { Erp.push(id) }
end
