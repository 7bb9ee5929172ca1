# frozen_string_literal: true

require_relative "../helpers/cron_words"
require_relative "../helpers/zone_time"
require_relative "../helpers/tick_outcome"

module Deckhand
  class Web
    module Pages
      # The periodic (cron) jobs as the leader runs them: schedule, zone,
      # next and last run, what became of the last ticks; pause, resume and enqueue now per entry.
      class PeriodicPage < Action # :nodoc:
        include Helpers::CronWords
        include Helpers::ZoneTime
        include Helpers::TickOutcome

        ROUTES = [
          ["GET", "periodic", self, :index],
          ["POST", "periodic/:name", self, :act]
        ].freeze
        ACTIONS = %w[pause resume enqueue].freeze
        # Its own notices (texts notice.<name>), beside the actions' shared ones.
        NOTICES = %w[periodic_paused periodic_resumed periodic_enqueued periodic_gone].freeze

        def index
          @section = "periodic"
          @periodic = api.periodic
          @now = api.now
          render :periodic, title: t("nav.periodic")
        end

        def act
          entry = api.periodic.find(params["name"]) or return redirect_to(path("periodic"), notice: "periodic_gone")
          case choice_param("action", ACTIONS, nil)
          when "pause" then entry.pause && redirect_to(path("periodic"), notice: "periodic_paused")
          when "resume" then entry.resume && redirect_to(path("periodic"), notice: "periodic_resumed")
          when "enqueue"
            entry.enqueue_now
            paused = api.queue(entry.target_queue).paused? ? 1 : 0
            redirect_to(path("periodic"), notice: "periodic_enqueued", paused: paused)
          else not_found("action")
          end
        end

        def notice
          name, _, paused = Flash.read(@request)
          return super unless NOTICES.include?(name)
          text = t("notice.#{name}")
          paused.to_i.positive? ? html("#{text}. #{t("notice.periodic_paused_queue")}") : text
        end
      end
    end
  end
end
