# frozen_string_literal: true

module Deckhand
  class Web
    module Helpers
      # The job classes holding a queue (API::QueueHolders), in words: the
      # queue's page draws them in a table (views/_holders.erb); the list of
      # queues says the chief one of each side in a line.
      #
      #   percent(0.934)         # => "93%"
      #   holders_line(holders)  # => "running: ReportJob 10 of 10, for 7 min · waiting: ReportJob 93% of the next 1,000"
      module Holders
        def percent(share) = "#{(share * 100).round}%"

        def holders_line(holders)
          parts = []
          if (top = holders.running.first)
            parts << "running: #{truncate(top.name, 60)} #{number(top.running)} of #{number(holders.running_total)}#{", for #{duration(top.running_for)}" if top.running_for}"
          end
          if (top = holders.waiting.first)
            parts << "waiting: #{truncate(top.name, 60)} #{percent(top.waiting_share)}#{" of the next #{number(holders.sampled)}" if holders.sample?}"
          end
          parts.join(" · ")
        end
      end
    end
  end
end
