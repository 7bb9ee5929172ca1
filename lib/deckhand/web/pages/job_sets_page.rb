# frozen_string_literal: true

require_relative "../retry_destinations"
require_relative "../helpers/set_words"

module Deckhand
  class Web
    module Pages
      # The retry, scheduled and dead sets: pages, text filter, one entry's
      # details, and actions on one entry, the checked ones, all matches of a
      # filter, or the whole set. Every action returns to the page, filter and
      # place it was started from.
      class JobSetsPage < Action # :nodoc:
        include Helpers::SetWords

        SETS = {"retries" => :retries, "scheduled" => :scheduled, "dead" => :dead}.freeze
        ACTIONS = {
          "retries" => %w[retry delete kill], "scheduled" => %w[retry delete kill], "dead" => %w[retry delete]
        }.freeze
        DONE = {"retry" => "retried", "delete" => "deleted", "kill" => "killed"}.freeze
        # The sets whose job page offers Cancel (docs/cancelling.md): the job
        # is taken out and recorded as cancelled, wherever it went meanwhile.
        CANCELLABLE = %w[retries scheduled].freeze
        SAMPLE = 10
        # Up to this size, a filtered list counts every match in the set (one
        # bounded script call); above it, on request.
        TOTAL_BUDGET = 10_000
        # In every job that names its queue: reads the whole set's destinations.
        QUEUE_FIELD = '"queue":'

        def index
          setup_set
          @filter = set_filter
          @query = @filter.text
          @per_page = per_page
          @size = @set.size
          @confirm = choice_param("confirm", @actions, nil) unless @filter.empty?
          return confirm_matches if @confirm
          return groups if @filter.empty? && request.params["view"] == "groups"
          @filter.empty? ? page_through : filter
          @live = true
          @skip_to_list = @entries.any?
          render :job_set, title: @title
        end

        def show
          setup_set
          @entry = @set.fetch(params["key"]) or return gone
          @iteration = api.iterations([@entry.jid])[@entry.jid] if @entry.jid.is_a?(String)
          @destinations = RetryDestinations.entry(api, @entry)
          @cancellable = CANCELLABLE.include?(@name) && @entry.jid.is_a?(String)
          render :job, title: "#{@title}: #{@entry.display_class}"
        end

        # Checked entries ("keys[]"), all matches of a filter ("all" = "1" and
        # "q", "class", "wrapped", "error", with the "count" the user
        # confirmed), or the whole set.
        def bulk
          setup_set
          action = choice_param("action", ACTIONS.fetch(@name), nil) or return not_found("action")
          return all(action) if request.POST["all"] == "1"
          done(action, apply(action, list_param("keys").filter_map { |key| @set.fetch(key) }))
        end

        def act
          setup_set
          return unlock if request.POST["action"] == "unlock"
          return cancel if request.POST["action"] == "cancel" && CANCELLABLE.include?(@name)
          action = choice_param("action", ACTIONS.fetch(@name), nil) or return not_found("action")
          entry = @set.fetch(params["key"]) or return redirect_to(back, notice: "gone")
          done(action, apply(action, [entry]))
        end

        private

        # "Release lock" on a job's page: its unique lock goes, if it still
        # holds it (a deleted retry keeps its lock, as in Sidekiq Enterprise).
        def unlock
          entry = @set.fetch(params["key"]) or return redirect_to(path(@name), notice: "gone")
          released = api.unique_lock(entry)&.release
          redirect_to(path(@name, entry.key), notice: released ? "unlocked" : "not_locked")
        end

        # "Cancel" on a job's page: the job, by its jid, wherever it is now (it
        # may have left for its queue or started since the page was drawn).
        def cancel
          entry = @set.fetch(params["key"]) or return redirect_to(path(@name), notice: "gone")
          redirect_to(path(@name), notice: CANCEL_NOTICES[api.cancel(entry.jid)])
        end

        # The filter of the request: a text ("q") and exact job and error
        # classes ("class", or "wrapped" for an Active Job; "error").
        def set_filter
          API::SetFilter.new(text: text_param("q"), error: text_param("error"), job_class: text_param("class"), wrapped: text_param("wrapped"))
        end

        def setup_set
          @name = params["set"]
          @section = @name
          @title = @set_title = t("nav.#{@name}")
          @set = api.job_set(SETS.fetch(@name))
          @actions = ACTIONS.fetch(@name)
        end

        # With a filter, only its matches, and only if no more match than the
        # user was told; without one, the whole set.
        def all(action)
          filter = set_filter
          return done(action, @set.public_send(:"#{action}_all")) if filter.empty?
          confirmed = int_param("count", 0, 0..2**40)
          if @set.count_matching(filter.texts) > confirmed
            return redirect_to(path(@name, **filter.params, confirm: action), notice: "changed")
          end
          done(action, @set.public_send(:"#{action}_matching", filter.texts))
        end

        # Back with the notice, warning when retried jobs went to a paused queue.
        def done(action, count) = redirect_to(back, notice: DONE.fetch(action), count: count, paused: @set.sent_to_paused.values.sum)

        def apply(action, entries)
          return 0 if entries.empty?
          case action
          when "retry" then @set.retry(entries)
          when "delete" then @set.delete(entries)
          when "kill" then @set.kill(entries)
          end
        end

        # Where the action was started: the list's page, size, filter and
        # stretch, scrolled to the list.
        def back
          query = {**set_filter.params, from: int_param("from", nil, 1..Action::MAX_PAGE), page: int_param("page", nil, 2..Action::MAX_PAGE)}
          query[:per_page] = per_page unless per_page == 25
          "#{path(@name, **query)}#entries"
        end

        def page_through
          paginate(@size)
          @entries = @set.page(@page, @per_page)
        end

        # Searches a bounded stretch of the set per request; the page links to
        # where the next stretch starts.
        def filter
          @from = int_param("from", 0, 0..@size)
          @entries, @resume_at = @set.filter(@filter.texts, from: @from, limit: @per_page)
          @total = @set.count_matching(@filter.texts) if @size <= TOTAL_BUDGET || request.params["total"] == "1"
        end

        # Before acting on every match of a filter: how many there are
        # (counted in Redis over the whole set) and the first few of them.
        def confirm_matches
          @matches = @set.count_matching(@filter.texts)
          @entries, = @set.filter(@filter.texts, limit: SAMPLE, budget: API::JobSet::COUNT_STEP)
          @destinations = RetryDestinations.matching(api, @set, @filter.texts) if @confirm == "retry" && @matches.positive?
          render :job_set_confirm, title: t("confirm.page_title", set: @title)
        end

        # Triage: the set counted by error class and by job class, in Redis;
        # the first GROUP_BUDGET entries unless asked for the whole set.
        def groups
          @whole = request.params["whole"] == "1"
          @groups = @set.groups(budget: @whole ? nil : API::JobSet::GROUP_BUDGET)
          @retry_here = retry_here?
          render :job_set_groups, title: t("groups.page_title", set: @title)
        end

        # Whether each error × class line may confirm its retry in the page
        # (a disclosure with the count and the form) rather than on the
        # confirmation page: only when every entry was counted, so the count
        # shown is the line's whole, and no entry of the set would go to a
        # paused or unworked queue, the warnings the confirmation page shows.
        def retry_here?
          return false unless @actions.include?("retry") && can_act? && @groups.complete? && @size.positive?
          dest = RetryDestinations.matching(api, @set, [QUEUE_FIELD])
          dest.complete? && !dest.any?
        end

        def gone
          @jid = params["key"].to_s.split("-", 2)[1].to_s[0, 100]
          @message = t("gone.left_#{@name}")
          render :gone, status: 404, title: t("gone.title")
        end
      end
    end
  end
end
