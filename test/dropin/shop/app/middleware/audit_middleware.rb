# frozen_string_literal: true

module Shop
  # Server middleware: records each job it sees run, with its tenant.
  class AuditMiddleware
    include Sidekiq::ServerMiddleware

    def call(_job_instance, job, queue)
      Shop.record("audit", job["class"], "#{queue}/#{job["tenant"]}")
      yield
    end
  end
end
