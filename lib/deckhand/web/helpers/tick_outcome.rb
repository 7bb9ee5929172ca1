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

        def tick_outcome(tick, now)
          badge = %(<span class="badge#{TONES[tick.state]} tick-state">#{h(tick.state)}</span>)
          words = tick_words(tick, now)
          html(words.empty? ? badge : "#{badge} #{h(words)}")
        end

        private

        def tick_words(tick, now)
          case tick.state
          when "succeeded" then tick.duration ? "in #{duration(tick.duration)}" : ""
          when "failed" then [tick.error, tick.duration && "after #{duration(tick.duration)}"].compact.join(", ")
          when "running" then tick.started_at ? "for #{duration(now - tick.started_at)}" : ""
          when "skipped" then tick.reason.to_s
          when "enqueued" then waiting_words(tick, now)
          else ""
          end
        end

        # A job that went back to wait after it started says why.
        def waiting_words(tick, now)
          since = tick.updated_at ? " for #{duration(now - tick.updated_at)}" : ""
          where = tick.queue ? " in #{truncate(tick.queue, 40)}" : ""
          "#{"#{tick.reason}; " if tick.reason}waiting#{where}#{since}"
        end
      end
    end
  end
end
