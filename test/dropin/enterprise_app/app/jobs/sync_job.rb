# frozen_string_literal: true

class SyncJob
  include Sidekiq::Job

  sidekiq_options lock: :until_executed, lock_ttl: 600, on_conflict: :log

  def perform(id) = Sync.run(id)
end
