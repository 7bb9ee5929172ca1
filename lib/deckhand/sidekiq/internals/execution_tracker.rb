# frozen_string_literal: true

require_relative "server_internal"

module Sidekiq
  module Metrics
    # Sidekiq's per-job metrics recorder and its histogram, named in drop-in
    # mode only so that code requiring "sidekiq/metrics/tracking" loads. A
    # Deckhand server records each execution's time and outcome itself;
    # Sidekiq::Metrics::Query reads them.
    #
    #   Sidekiq::Metrics::ExecutionTracker.new(config)   # => Deckhand::DropIn::Unsupported
    class ExecutionTracker
      extend Deckhand::DropIn::ServerInternal
      unsupported "a Deckhand server records every execution's time and outcome itself; read them with " \
        "Sidekiq::Metrics::Query or Deckhand::API::Metrics"
    end

    class Histogram
      extend Deckhand::DropIn::ServerInternal
      unsupported "Deckhand keeps its own execution-time histogram per class and minute " \
        "(Sidekiq::Metrics::Query#for_job returns it as `hist`)"
    end
  end
end
