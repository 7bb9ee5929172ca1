# frozen_string_literal: true

require_relative "server_internal"

module Sidekiq
  module Metrics
    # Sidekiq's histogram of one class's times, named only: Deckhand keeps
    # its own, finer one.
    #
    #   Sidekiq::Metrics::Histogram.new("ReportJob")   # => Deckhand::DropIn::Unsupported
    class Histogram
      extend Deckhand::DropIn::ServerInternal

      unsupported "Deckhand keeps its own execution-time histogram per class and minute " \
        "(Sidekiq::Metrics::Query#for_job returns it as `hist`)"
    end
  end
end
