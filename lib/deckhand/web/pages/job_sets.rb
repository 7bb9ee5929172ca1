# frozen_string_literal: true

module Deckhand
  class Web
    module Pages
      # The retry, scheduled and dead sets: pages, text filter, one entry's
      # details, and actions on one entry, the checked ones, or all of them.
      class JobSets < Action
        TITLES = {"retries" => "Retries", "scheduled" => "Scheduled", "dead" => "Dead"}.freeze
        SETS = {"retries" => :retries, "scheduled" => :scheduled, "dead" => :dead}.freeze
        ACTIONS = {
          "retries" => %w[retry delete kill], "scheduled" => %w[retry delete kill], "dead" => %w[retry delete]
        }.freeze
        DONE = {"retry" => "retried", "delete" => "deleted", "kill" => "killed"}.freeze

        def index
          setup_set
          @query = text_param("q")
          @per_page = per_page
          @size = @set.size
          @query.empty? ? page_through : filter
          render :job_set, title: @title
        end

        def show
          setup_set
          @entry = @set.fetch(params["key"]) or return not_found("that job has left the #{@title.downcase} set")
          render :job, title: "#{@title}: #{@entry.display_class}"
        end

        # Checked entries ("keys[]"), or the whole set ("all" = "1").
        def bulk
          setup_set
          action = choice_param("action", ACTIONS.fetch(@name), nil) or return not_found("action")
          count = if request.POST["all"] == "1"
            {"retry" => -> { @set.retry_all }, "delete" => -> { @set.delete_all }, "kill" => -> { @set.kill_all }}.fetch(action).call
          else
            apply(action, list_param("keys").filter_map { |key| @set.fetch(key) })
          end
          redirect_to(path(@name), notice: DONE.fetch(action), count: count)
        end

        def act
          setup_set
          return unlock if request.POST["action"] == "unlock"
          action = choice_param("action", ACTIONS.fetch(@name), nil) or return not_found("action")
          entry = @set.fetch(params["key"]) or return redirect_to(path(@name), notice: "gone")
          redirect_to(path(@name), notice: DONE.fetch(action), count: apply(action, [entry]))
        end

        private

        # "Release lock" on a job's page: its unique lock goes, if it still
        # holds it (a deleted retry keeps its lock, as in Sidekiq Enterprise).
        def unlock
          entry = @set.fetch(params["key"]) or return redirect_to(path(@name), notice: "gone")
          released = api.unique_lock(entry)&.release
          redirect_to(path(@name, entry.key), notice: released ? "unlocked" : "not_locked")
        end

        def setup_set
          @name = params["set"]
          @section = @name
          @title = TITLES.fetch(@name)
          @set = api.job_set(SETS.fetch(@name))
          @actions = ACTIONS.fetch(@name)
        end

        def apply(action, entries)
          return 0 if entries.empty?
          case action
          when "retry" then @set.retry(entries)
          when "delete" then @set.delete(entries)
          when "kill" then @set.kill(entries)
          end
        end

        def page_through
          @pages = [(@size + @per_page - 1) / @per_page, 1].max
          @page = [int_param("page", 1, 1..Action::MAX_PAGE), @pages].min
          @entries = @set.page(@page, @per_page)
        end

        # Searches a bounded stretch of the set per request; the page links to
        # where the next stretch starts.
        def filter
          @from = int_param("from", 0, 0..@size)
          @entries, @resume_at = @set.filter(@query, from: @from, limit: @per_page)
        end
      end
    end
  end
end
