# frozen_string_literal: true

require_relative "../helpers/step_graph"

module Deckhand
  class Web
    module Pages
      # Workflows newest first; one workflow's steps drawn as a graph by
      # level with their states, listed below it; cancel the workflow, retry
      # a dead step (the rest resumes: docs/workflows.md).
      class WorkflowsPage < Action # :nodoc:
        include Helpers::StepGraph

        ROUTES = [
          ["GET", "workflows", self, :index],
          ["GET", "workflows/:id", self, :show],
          ["POST", "workflows/:id", self, :act]
        ].freeze
        # Workflow ids are 16 URL-safe characters; anything else never reaches Redis as a key.
        ID = /\A[A-Za-z0-9_-]{1,64}\z/
        # Steps listed under the graph.
        LISTED = 500
        # The notices its actions leave (texts notice.*).
        NOTICES = %w[workflow_cancelled workflow_ended step_retried step_not_retried].freeze

        def index
          @section = "workflows"
          paginate(workflows.size)
          @workflows = workflows.page(@page, @per_page)
          render :workflows, title: t("nav.workflows")
        end

        def show
          @section = "workflows"
          @workflow = find or return not_found("that workflow has expired, or never existed")
          @steps = @workflow.steps
          render :workflow, title: t("workflows.title", id: @workflow.description.empty? ? @workflow.id : truncate(@workflow.description, 60))
        end

        def act
          record = find or return not_found("workflow")
          back = path("workflows", record.id)
          case choice_param("action", %w[cancel retry], nil)
          when "cancel" then redirect_to(back, notice: (record.cancel == :ended) ? "workflow_ended" : "workflow_cancelled")
          when "retry" then redirect_to(back, notice: record.retry_step(text_param("jid", max: 100)) ? "step_retried" : "step_not_retried")
          else not_found("action")
          end
        end

        def notice
          name, = Flash.read(@request)
          NOTICES.include?(name) ? t("notice.#{name}") : super
        end

        # A workflow's state => its badge's tone.
        def tone(state) = {"succeeded" => "good", "failed" => "bad", "cancelled" => "warn"}[state]

        private

        def workflows = @workflows_api ||= api.workflows

        def find
          id = params["id"].to_s
          ID.match?(id) ? api.workflow(id) : nil
        end
      end
    end
  end
end
