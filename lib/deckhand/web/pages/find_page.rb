# frozen_string_literal: true

module Deckhand
  class Web
    module Pages
      # A job by its jid or by an argument's value, from the search box on
      # every page. A jid goes straight to the job's detail page when it waits
      # in the retry, scheduled or dead set, to Busy when it is running, and
      # shows it held (class paused) with a link to its queue when its class
      # is paused. Any other text lists the jobs with an argument equal to it,
      # or that jid (a job waiting in a queue), in the sets, the queues and
      # the held jobs (API::JobSearch, bounded:
      # the page says how far it looked), else a page that says where it looked.
      #
      #   GET /find?jid=b4a577edbccf1d805744efa9   # => 303 to /retries/1732000000.5-b4a5...
      #   GET /find?jid=98431                      # => the jobs with an argument 98431
      class FindPage < Action # :nodoc:
        SETS = {retries: "retries", scheduled: "scheduled", dead: "dead"}.freeze

        def show
          @jid = text_param("jid", max: 100)
          if @jid.empty?
            @message = t("find.empty")
            return render(:gone, title: t("find.page_title"))
          end
          # A text that is no Sidekiq jid (24 hex digits) is most likely an
          # argument, which many jobs may carry: only the exact "jid" field
          # is looked for, not every mention, one round trip each.
          exact = !@jid.match?(/\A\h{24}\z/)
          SETS.each do |set, name|
            entry = api.job_set(set).find_jid(@jid, exact: exact) and return see(path(name, entry.key))
          end
          return see(path("busy", jid: @jid)) if api.running.any? { |running| running.job.jid == @jid }
          held = api.class_pauses.find_held(@jid) and return held_page(held)
          @search = api.find_by_argument(@jid)
          return render(:find, title: t("find.title", text: @jid)) unless @search.hits.empty?
          @message = t("find.not_found", jid: @jid, reach: reach)
          stuck_queues
          render :gone, status: 404, title: t("find.not_found_title")
        end

        private

        # A job of a paused class held aside has no page of its own: the
        # search's table shows it, linked to its queue's held jobs.
        def held_page(held)
          @hits = [API::JobSearch::Hit.new(:held, held, held.queue)]
          render :find, title: t("find.jid_title", jid: @jid)
        end

        # How far an argument search looks, in words for the page.
        def reach
          locale.t("find.reach", entries: number(API::JobSearch::SET_BUDGET), jobs: number(API::JobSearch::QUEUE_BUDGET),
            queues: number(API::JobSearch::QUEUES))
        end

        # Where a job that is "not here" may be waiting without running:
        # paused queues and queues no live process works, with jobs in them.
        def stuck_queues
          @worked = api.processes.worked_queues
          @stuck = api.queues.select { |queue| queue.size.positive? && (queue.paused? || !@worked.include?(queue.name)) }
        end

        def see(location) = [303, Headers.text(@nonce).merge("location" => location), ["See #{location}"]]
      end
    end
  end
end
