# frozen_string_literal: true

module Deckhand
  class Web
    module Pages
      # Every queue with its size and latency; one queue's jobs page by page,
      # in the order they will run; pause, resume, clear, delete a job.
      class Queues < Action
        ACTIONS = %w[pause resume clear delete].freeze

        def index
          @section = "queues"
          @queues = api.queues
          @throttles = api.throttles.to_h { |t| [t.queue, t] }
          render :queues, title: "Queues"
        end

        def show
          @section = "queues"
          @queue = api.queue(params["name"])
          @per_page = per_page
          @pages = [(@queue.size + @per_page - 1) / @per_page, 1].max
          @page = [int_param("page", 1, 1..Action::MAX_PAGE), @pages].min
          @jobs = @queue.jobs(page: @page, per_page: @per_page)
          @throttles = api.throttles.to_h { |t| [t.queue, t] }
          render :queue, title: "Queue #{@queue.name}"
        end

        def act
          queue = api.queue(params["name"])
          back = path("queues", queue.name, page: request.POST["page"])
          case choice_param("action", ACTIONS, nil)
          when "pause"
            queue.pause
            redirect_to(back, notice: "paused")
          when "resume"
            queue.resume
            redirect_to(back, notice: "resumed")
          when "clear"
            queue.clear
            redirect_to(path("queues"), notice: "cleared")
          when "delete" then delete(queue, back)
          else not_found("action")
          end
        end

        private

        def delete(queue, back)
          deleted = queue.delete_job(text_param("jid", max: 100), position: int_param("position", 0, 0..2**40))
          deleted ? redirect_to(back, notice: "deleted", count: 1) : redirect_to(back, notice: "gone")
        end
      end
    end
  end
end
