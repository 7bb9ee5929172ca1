# frozen_string_literal: true

module Deckhand
  class Web
    module Pages
      # The live processes, their memory and the jobs they run, with buttons
      # that send quiet (TSTP) or stop (TERM) through each process's signal
      # list, and cancel a running job (docs/cancelling.md; an iterable job's
      # state says so too, docs/iterable.md).
      class BusyPage < Action # :nodoc:
        RUNNING_SHOWN = 500

        def show
          @section = "busy"
          @live = true
          @only = choice_param("only", %w[processes jobs], nil) # one section only, as Sidekiq 8's ?only=
          @processes = api.processes
          @periodic_leader = api.periodic.leader
          @pending = @processes.pending_signals
          running = @processes.running
          @running_total = running.size
          @running = running.first(RUNNING_SHOWN)
          @iterations = api.iterations(@running.map { |work| work.job.jid })
          @cancelling = api.cancelling(@running.map { |work| work.job.jid })
          render :busy, title: t("nav.busy")
        end

        def act
          jid = text_param("cancel", max: 100)
          return cancel(jid) unless jid.empty?
          signal = choice_param("signal", %w[quiet stop], nil) or return not_found("signal")
          identity = text_param("identity", max: 500)
          processes = api.processes
          targets = (identity == "all") ? processes.to_a : [processes.find(identity)].compact
          targets.each { |process| (signal == "quiet") ? process.quiet! : process.stop! }
          redirect_to(path("busy"), notice: (signal == "quiet") ? "quieted" : "stopped")
        end

        private

        def cancel(jid)
          return not_found("jid") unless jid.match?(/\A[\w-]{1,64}\z/)
          IterableJob.cancel!(jid, config: @web.config) if api.iterations([jid]).key?(jid)
          redirect_to(path("busy"), notice: CANCEL_NOTICES[api.cancel(jid)])
        end
      end
    end
  end
end
