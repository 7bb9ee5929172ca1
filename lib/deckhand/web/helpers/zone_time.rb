# frozen_string_literal: true

module Deckhand
  class Web
    module Helpers
      # A time in a periodic entry's own zone ("Europe/Paris", "+09:00"),
      # shown beside UTC: a cron written for 02:00 in Paris reads 02:00.
      #
      #   zone_time(entry.next_at, "America/New_York")
      #   # => "2026-11-25 02:00:00 EST" with "07:00:00 UTC" beside it
      #
      # Zone names are read with tzinfo, which periodic jobs already load
      # (through fugit); without it, or for a zone it does not know, the time
      # shows in UTC alone.
      module ZoneTime
        OFFSET = /\A[+-]\d\d:?\d\d\z/

        def zone_time(time, zone)
          utc_text = time.utc.strftime("%Y-%m-%d %H:%M:%S UTC")
          local = in_zone(time, zone.to_s)
          return html(%(<span class="zone-time">#{h(utc_text)}</span>)) unless local
          html(%(<span class="zone-time">#{h(local)}</span> <span class="meta zone-time">#{h(utc_text)}</span>))
        end

        private

        # The time's wall clock in `zone`, or nil for UTC, no zone or an unknown one.
        def in_zone(time, zone)
          return nil if zone.empty? || %w[UTC Etc/UTC Z].include?(zone)
          return time.getlocal(zone.sub(/(\d\d)(\d\d)\z/, '\1:\2')).strftime("%Y-%m-%d %H:%M:%S %:z") if OFFSET.match?(zone)
          require "tzinfo"
          TZInfo::Timezone.get(zone).to_local(time).strftime("%Y-%m-%d %H:%M:%S %Z")
        rescue LoadError, ArgumentError # no tzinfo; an offset out of range
          nil
        rescue TZInfo::InvalidTimezoneIdentifier # named only once tzinfo loaded
          nil
        end
      end
    end
  end
end
