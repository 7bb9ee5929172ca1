# frozen_string_literal: true

module Deckhand
  module Periodic
    # When a periodic entry's ticks fall, as epoch seconds, from a fugit cron
    # that carries its zone. Fugit does the cron arithmetic; this class adds
    # the rule cron users expect at daylight-saving changes, for entries with
    # fixed hours (wall-clock jobs like "30 2 * * *"):
    #
    # - spring forward: a tick whose wall-clock time does not exist that day
    #   (2:30 when clocks jump from 2:00 to 3:00) runs once, at the jump;
    # - fall back: a wall-clock time that happens twice (1:30) runs once, the
    #   first time.
    #
    # Entries whose hour is "*" (every minute, every 2 seconds) follow real
    # time through the change, neither doubled nor skipped.
    #
    #   timing = Timing.new(Fugit.parse_cron("30 2 * * * America/New_York"))
    #   timing.next_after(Time.utc(2026, 3, 7, 12).to_i)   # => 2026-03-08 07:00 UTC (3:00 EDT)
    #   timing.last_until(Time.now.to_i)                   # the latest tick at or before now
    class Timing
      def initialize(cron)
        @cron = cron
        @zone = cron.timezone
        @wall_clock = !@zone.nil? && !cron.hours.nil?
        # The same fields read in UTC: whether a cron matches a wall-clock
        # time that does not exist in its own zone.
        @naive = Fugit::Cron.parse("#{cron.to_cron_s.split[0...-1].join(" ")} UTC") if @wall_clock
      end

      # The first tick strictly after `epoch`.
      def next_after(epoch)
        loop do
          tick = @cron.next_time(Time.at(epoch)).to_f.floor
          return tick unless @wall_clock
          jump = skipped_jump(epoch, tick)
          return jump if jump
          window = repeated(tick) or return tick
          epoch = window.end - 1 # on past the hour that happens twice
        end
      end

      # The latest tick at or before `epoch`.
      def last_until(epoch)
        tick = @cron.previous_time(Time.at(epoch.floor + 1)).to_f.floor
        return tick unless @wall_clock
        window = repeated(tick)
        tick = @cron.previous_time(Time.at(window.begin)).to_f.floor if window
        skipped_jump(tick, epoch.floor) || tick
      end

      private

      # The instant clocks jumped forward in (from, to], if the cron matched a
      # wall-clock time that the jump skipped.
      def skipped_jump(from, to)
        return nil unless to > from
        gap = @zone.transitions_up_to(Time.at(to + 1), Time.at(from + 1)).find do |t|
          t.offset.observed_utc_offset > t.previous_offset.observed_utc_offset
        end
        return nil unless gap
        at = gap.at.to_i
        first = at + gap.previous_offset.observed_utc_offset # the skipped wall clock, written as UTC
        last = at + gap.offset.observed_utc_offset
        match = @naive.next_time(Time.at(first - 1).utc).to_f
        (match < last && at > from && at <= to) ? at : nil
      end

      # The range of epoch seconds of the second pass over wall-clock times
      # clocks fell back over, if the tick is in it (its first pass came an
      # offset-change earlier), else nil.
      def repeated(tick)
        fall = @zone.transitions_up_to(Time.at(tick + 1), Time.at(tick - 86_400)).reverse.find do |t|
          t.offset.observed_utc_offset < t.previous_offset.observed_utc_offset
        end
        return nil unless fall
        at = fall.at.to_i
        window = at...(at + fall.previous_offset.observed_utc_offset - fall.offset.observed_utc_offset)
        window.cover?(tick) ? window : nil
      end
    end
  end
end
