# frozen_string_literal: true

module Deckhand
  class Web
    module Helpers
      # The live header (the headline counters on every page, refreshed from
      # stats.json) and the live toggle of pages that mark themselves live
      # (`@live = true`): deckhand.js re-reads such a page's content while the
      # toggle is on and the tab is visible.
      #
      #   live_counters  # => [["busy", "Busy", "/busy", 3], ...]
      module Live
        COUNTERS = [
          ["busy", "Busy", "busy"], ["enqueued", "Enqueued", "queues"], ["retries", "Retries", "retries"],
          ["scheduled", "Scheduled", "scheduled"], ["dead", "Dead", "dead"], ["failed", "Failed", nil]
        ].freeze

        # The header is left out where the page shows the same counters (the
        # dashboard) or where Redis cannot be asked (@bare).
        def live_header? = !@bare && @section != "dashboard"

        def live_counters
          stats = api.stats
          COUNTERS.map { |field, label, section| [field, label, section && path(section), stats.public_send(field)] }
        end

        def live_page? = !!@live

        # Seconds between refreshes: 5, or ?interval=N (1 to 60).
        def live_interval = int_param("interval", 5, 1..60)
      end
    end
  end
end
