# frozen_string_literal: true

class NightlyWorker
  include Sidekiq::Worker
  include Sidekiq::Throttled::Job

  sidekiq_throttle concurrency: {limit: 1}
  sidekiq_options queue: "default", pool: SHARD_TWO

  LIMIT = Sidekiq::Limiter.concurrent("erp", 5)

  def perform
    Sidekiq::Client.via(SHARD_TWO) { ReportWorker.perform_async }
  end
end
