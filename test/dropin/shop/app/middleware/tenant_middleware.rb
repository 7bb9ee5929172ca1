# frozen_string_literal: true

module Shop
  # Client middleware: stamps every pushed job with the current tenant.
  class TenantMiddleware
    include Sidekiq::ClientMiddleware

    def call(_job_class, job, _queue, _redis_pool)
      job["tenant"] ||= ENV.fetch("SHOP_TENANT", "acme")
      yield
    end
  end
end
