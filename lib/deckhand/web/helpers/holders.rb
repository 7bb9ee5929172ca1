# frozen_string_literal: true

module Deckhand
  class Web
    module Helpers
      # The job classes holding a queue (API::QueueHolders), in words: the
      # queue's page draws them in a table (views/_holders.erb); the list of
      # queues says the chief one of each side in a line.
      #
      #   holders_line(holders)  # => "running: ReportJob 10 of 10, for 7 min · waiting: ReportJob 93% of the next 1,000"
      module Holders
        # Plain text (the page escapes it), in the page's language.
        def holders_line(holders)
          parts = []
          if (top = holders.running.first)
            vars = {name: truncate(top.name, 60), n: number(top.running), total: number(holders.running_total)}
            parts << (top.running_for ? locale.t("holders.running_for_line", time: duration(top.running_for), **vars) : locale.t("holders.running_line", **vars))
          end
          if (top = holders.waiting.first)
            vars = {name: truncate(top.name, 60), share: percent(top.waiting_share)}
            parts << (holders.sample? ? locale.t("holders.waiting_sample_line", n: number(holders.sampled), **vars) : locale.t("holders.waiting_line", **vars))
          end
          parts.join(" · ")
        end
      end
    end
  end
end
