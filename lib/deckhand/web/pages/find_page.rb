# frozen_string_literal: true

module Deckhand
  class Web
    module Pages
      # A job by its jid, from the search box on every page: straight to its
      # detail page when it waits in the retry, scheduled or dead set, to Busy
      # when it is running, else a page that says where it looked.
      #
      #   GET /find?jid=b4a577edbccf1d805744efa9   # => 303 to /retries/1732000000.5-b4a5...
      class FindPage < Action # :nodoc:
        SETS = {retries: "retries", scheduled: "scheduled", dead: "dead"}.freeze

        def show
          @jid = text_param("jid", max: 100)
          if @jid.empty?
            @message = "Type a job's jid (24 hex characters)."
            return render(:gone, title: "Find a job")
          end
          SETS.each do |set, name|
            entry = api.job_set(set).find_jid(@jid) and return see(path(name, entry.key))
          end
          return see(path("busy", jid: @jid)) if api.running.any? { |running| running.job.jid == @jid }
          @message = "No job with jid “#{@jid}” is in the retry, scheduled or dead sets or running now. " \
            "It may be waiting in a queue (queues are not searched: they can hold millions), or it has finished."
          stuck_queues
          render :gone, status: 404, title: "Not found"
        end

        private

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
