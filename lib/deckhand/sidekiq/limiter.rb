# frozen_string_literal: true

require_relative "../limiter"

module Sidekiq
  # Sidekiq Enterprise's rate limiters in drop-in mode: Deckhand's limiters,
  # which take the same shapes (docs/limits.md). A job over its limit is
  # rescheduled, as on Sidekiq Enterprise.
  #
  #   ERP = Sidekiq::Limiter.concurrent("erp", 5, wait_timeout: 5, lock_timeout: 30)
  #   ERP.within_limit { Erp.export(order) }
  module Limiter
    OverLimit = Deckhand::Limiter::OverLimit

    class << self
      %i[concurrent bucket window leaky points unlimited].each do |kind|
        define_method(kind) { |*args, **options| Deckhand::Limiter.public_send(kind, *args, **options) }
      end

      def configure
        raise Deckhand::DropIn::Unsupported.new("Sidekiq::Limiter.configure",
          "mark an API's own error with Deckhand::Limiter.over_limit_error(ErrorClass), and give each limiter its backoff:")
      end
    end
  end
end
