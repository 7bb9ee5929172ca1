# frozen_string_literal: true

require_relative "workflow_record"

module Deckhand
  class API
    # The workflows in Redis (Deckhand::Workflow), newest first, a page at a
    # time; a workflow leaves the list once its keys expired.
    #
    #   api.workflows.size                          # => 212
    #   api.workflows.page(1, 25).map { |flow| [flow.id, flow.state, flow.counts["total"]] }
    class Workflows
      def initialize(config)
        @config = config
      end

      # How many the list holds (a few may have expired since).
      #
      # @return [Integer]
      def size = Store::Features::WorkflowRecords.count(@config.store)

      # What every workflow did, all time, as the scripts that did it
      # counted: workflows "pushed", steps "released" to their queues and
      # "cancelled", and under "ended" the workflows that ended, by state
      # (a workflow that runs again after a retried step counts its next
      # end too). A count absent is 0.
      #
      #   api.workflows.counts   # => {"pushed" => 12, "released" => 90, "ended" => {"succeeded" => 11}}
      #
      # @return [Hash{String => Integer, Hash}]
      def counts = Store::Features::WorkflowRecords.counts(@config.store)

      # The workflows of one page (1-based), newest first.
      #
      # @return [Array<WorkflowRecord>]
      def page(number, per_page)
        Store::Features::WorkflowRecords.list(@config.store, (number - 1) * per_page, per_page).map { |record| WorkflowRecord.new(@config, record) }
      end
    end
  end
end
