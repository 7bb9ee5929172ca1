# frozen_string_literal: true

require_relative "minute_query"
require_relative "rollup_query"

module Sidekiq
  module Metrics
    # Sidekiq's metrics query in drop-in mode, as the version drop-in mode
    # stands in for answers it (Deckhand::DropIn::Version#metrics_layout):
    # Sidekiq 8's RollupQuery or Sidekiq 7.3's MinuteQuery.
    #
    #   Sidekiq::Metrics::Query.new.top_jobs.job_results.keys   # => ["ReportJob", ...]
    QUERIES = {7 => MinuteQuery, 8 => RollupQuery}.freeze
    Query = QUERIES.fetch(Deckhand::DropIn.version.metrics_layout)
  end
end
