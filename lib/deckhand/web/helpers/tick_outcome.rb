# frozen_string_literal: true

module Deckhand
  class Web
    module Helpers
      # What became of a periodic tick (API::PeriodicTick), as a badge and
      # a few words: "succeeded in 2.1 s", "failed: Net::ReadTimeout",
      # "running for 3 min", "enqueued: waiting in reports for 6 min",
      # "skipped: paused". `now` is Redis' (api.now), as the ticks' times are.
      #
      #   tick_outcome(entry.history.first, api.now)   # => <span class="badge bad tick-state">failed</span> Net::ReadTimeout
      module TickOutcome
        TONES = {"succeeded" => " good", "failed" => " bad", "skipped" => " warn"}.freeze
        # The states a tick's record may hold, each with its word in the texts (ticks.<state>).
        STATES = %w[enqueued running succeeded failed skipped].freeze

        def tick_outcome(tick, now)
          state = STATES.include?(tick.state) ? t("ticks.#{tick.state}") : h(tick.state)
          badge = %(<span class="badge#{TONES[tick.state]} tick-state">#{state}</span>)
          words = tick_words(tick, now)
          html(words.empty? ? badge : "#{badge} #{h(words)}")
        end

        private

        def tick_words(tick, now)
          case tick.state
          when "succeeded" then tick.duration ? locale.t("ticks.in", time: duration(tick.duration)) : ""
          when "failed" then [tick.error, tick.duration && locale.t("ticks.after", time: duration(tick.duration))].compact.join(", ")
          when "running" then tick.started_at ? locale.t("ticks.for", time: duration(now - tick.started_at)) : ""
          when "skipped" then tick.reason.to_s
          when "enqueued" then waiting_words(tick, now)
          else ""
          end
        end

        # A job that went back to wait after it started says why.
        def waiting_words(tick, now)
          since = tick.updated_at ? " #{locale.t("ticks.for", time: duration(now - tick.updated_at))}" : ""
          waiting = tick.queue ? locale.t("ticks.waiting_in", queue: truncate(tick.queue, 40)) : locale.t("ticks.waiting")
          "#{"#{tick.reason}; " if tick.reason}#{waiting}#{since}"
        end
      end
    end
  end
end
