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

      # The workflows of one page (1-based), newest first.
      #
      # @return [Array<WorkflowRecord>]
      def page(number, per_page)
        Store::Features::WorkflowRecords.list(@config.store, (number - 1) * per_page, per_page).map { |record| WorkflowRecord.new(@config, record) }
      end
    end
  end
end
