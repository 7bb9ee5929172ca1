# frozen_string_literal: true

require_relative "../../app/middleware/tenant_middleware"
require_relative "../../app/middleware/audit_middleware"

redis = {url: ENV.fetch("REDIS_URL", "redis://localhost:6379/0")}

Sidekiq.configure_server do |config|
  config.redis = redis
  config.capsule("reports") do |cap|
    cap.concurrency = 1
    cap.queues = %w[reports]
  end
  config.client_middleware { |chain| chain.add Shop::TenantMiddleware }
  config.server_middleware { |chain| chain.add Shop::AuditMiddleware }
  config.on(:startup) { Sidekiq.logger.info("shop worker ready") }
  config.on(:quiet) { Sidekiq.logger.info("shop worker quieting") }
  config.on(:shutdown) { Sidekiq.logger.info("shop worker done") }
  config.on(:exit) { Sidekiq.logger.info("shop worker exited") }
  config.error_handlers << ->(error, context, _config) { Shop.record("error", context[:job]["class"], error.message) }
  config.death_handlers << ->(job, error) { Shop.record("dead", job["class"], error.message) }
end

Sidekiq.configure_client do |config|
  config.redis = redis
  config.client_middleware { |chain| chain.add Shop::TenantMiddleware }
end
