# frozen_string_literal: true

require_relative "../helpers/holders"

module Deckhand
  class Web
    module Pages
      # Every queue with its size and latency and the classes holding it
      # (running, and the chief one at its head); one queue's jobs page by page,
      # in the order they will run (newest first with direction=desc) (a partitioned queue's partitions above
      # them, in cluster mode with the primary of each); pause, resume,
      # clear, delete a job (one waiting at a priority level too, named by
      # its level). Below the list, the paused job classes
      # (API::ClassPauses) with their held jobs: pause one, resume one.
      class QueuesPage < Action # :nodoc:
        include Helpers::Holders

        ACTIONS = %w[pause resume clear delete].freeze
        # The priority levels a job may wait at (docs/priority.md), 0 being the queue's own list.
        LEVELS = (-100..100)

        def index
          @section = "queues"
          @live = true
          @queues = api.queues
          @paused_classes = api.class_pauses.held
          read_processes
          @holders = api.queue_holders(@queues, running: @running)
          render :queues, title: t("nav.queues")
        end

        def show
          @section = "queues"
          @live = true
          @queue = api.queue(params["name"])
          @per_page = page_size
          @pages = [(@queue.size + @per_page - 1) / @per_page, 1].max
          @page = [int_param("page", 1, 1..Action::MAX_PAGE), @pages].min
          @jobs = newest_first? ? newest_jobs(@queue, @page, @per_page) : @queue.jobs(page: @page, per_page: @per_page)
          @paging = paging
          @tenants = @queue.tenants(10)
          # In cluster mode each partition is on a primary of its own choosing.
          @placement = api.placement if @queue.partitioned?
          read_processes
          @holders = @queue.holders(running: @running)
          @held = @queue.held
          @history = api.queue_history(@queue.name, period: period)
          render :queue, title: t("queue.title", name: @queue.name)
        end

        def act
          queue = api.queue(params["name"])
          action = choice_param("action", ACTIONS, nil)
          back = back_to(queue, jobs: action == "delete")
          case action
          when "pause"
            queue.pause
            redirect_to(back, notice: "paused")
          when "resume"
            queue.resume
            redirect_to(back, notice: "resumed")
          when "clear"
            queue.clear
            redirect_to(path("queues"), notice: "cleared") # the queue's page is gone
          when "delete" then delete(queue, back)
          else not_found("action")
          end
        end

        # Pauses or resumes the job class the form names.
        def classes
          name = text_param("class")
          return not_found("class") if name.empty?
          pauses = api.class_pauses
          case choice_param("action", %w[pause resume], nil)
          when "pause"
            pauses.pause(name)
            redirect_to("#{path("queues")}#classes", notice: "class_paused")
          when "resume" then redirect_to("#{path("queues")}#classes", notice: "class_resumed", count: pauses.resume(name))
          else not_found("action")
          end
        end

        private

        # One read of the process records serves the "no process works it"
        # badges, the throttles the servers publish and the running jobs.
        def read_processes
          processes = api.processes
          @running = processes.running
          @worked = processes.worked_queues
          @throttles = api.throttles(processes: processes).to_h { |t| [t.queue, t] }
        end

        # The list when the action came from it, else the queue's page the
        # user was on, with its chart's period, scrolled to its jobs after
        # a job's row was acted on.
        def back_to(queue, jobs:)
          return path("queues") if request.POST["from"] == "list"
          location = path("queues", queue.name, page: int_param("page", nil, 2..Action::MAX_PAGE), **paging)
          (jobs && request.POST["page"]) ? "#{location}#jobs" : location
        end

        # Sidekiq's addresses page a queue with count= (its page size) and
        # direction=desc (newest first); per_page= (Deckhand's sizes) wins.
        def counted? = !@request.params.key?("per_page") && @request.params.key?("count")

        def page_size = counted? ? int_param("count", 25, 1..100) : per_page

        def newest_first? = @request.params["direction"] == "desc"

        # The period of the depth and latency charts; the hour is the default.
        def period = choice_param("period", API::QueueHistory::PERIODS.keys, "1h")

        # What the pager, the period tabs and the forms carry on, so page 2
        # is paged and charted as page 1.
        def paging
          size = page_size
          {per_page: (counted? || size == 25) ? nil : size, count: counted? ? size : nil, direction: newest_first? ? "desc" : nil,
           period: (period == "1h") ? nil : period}
        end

        # This queue's page `page` charting `period`, paged as this one (a period tab's link).
        def period_path(period) = path("queues", @queue.name, page: (@page > 1) ? @page : nil, **@paging, period: period)

        # Page `page` counted from the newest job: the same run-order slice
        # read from at most two of the API's pages, newest first.
        def newest_jobs(queue, page, size)
          stop = queue.size - ((page - 1) * size)
          return [] if stop <= 0
          start = [stop - size, 0].max
          pages = ((start / size) + 1)..(((stop - 1) / size) + 1)
          jobs = pages.flat_map { |n| queue.jobs(page: n, per_page: size) }
          (jobs[start - ((pages.first - 1) * size), stop - start] || []).reverse
        end

        # A job waiting at a priority level names it (level=), else it waits
        # in the queue's own list.
        def delete(queue, back)
          at = {position: int_param("position", 0, 0..2**40), level: int_param("level", nil, LEVELS)}
          digest = text_param("digest", max: 64)
          deleted = digest.empty? ? queue.delete_job(text_param("jid", max: 100), **at) : queue.delete_entry(digest, **at)
          deleted ? redirect_to(back, notice: "deleted", count: 1) : redirect_to(back, notice: "gone")
        end
      end
    end
  end
end
