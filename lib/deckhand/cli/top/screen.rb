# frozen_string_literal: true

require_relative "fitting"
require_relative "../../locale"

module Deckhand
  class CLI
    module Top
      # Lays a Snapshot out as the lines of one terminal screen, cut to its
      # width and height: the totals, then the queues (largest first) and the
      # processes, each list shortened with "... N more" when the screen is
      # too small. In cluster mode a partitioned queue spread over several
      # primaries gets a second line: how many partitions each one holds.
      # Plain text: the command adds the cursor moves. Its words are texts
      # of the language it is given (keys top.*, English when none).
      # A queue's state keeps whole phrases at any width ("paused +1"),
      # never a word cut short.
      #
      #   Screen.new(width: 100, height: 30, locale: Deckhand::Locale["de"]).lines(snapshot, location: "redis://...", now: Time.now)
      class Screen
        TITLE = "Deckhand top  %{location}  %{time} UTC"
        # Room the state of a queue or process keeps beside the name.
        STATE_ROOM = 24

        def initialize(width:, height:, locale: nil)
          @width = [width, 40].max
          @height = [height, 8].max
          @locale = locale || Locale[Locale::DEFAULT]
        end

        # live: the view refreshes and a key quits it (else one frame, --once).
        def lines(snapshot, location:, now: Time.now, live: true)
          s = snapshot.stats
          rate = snapshot.throughput ? "#{@locale.decimal(snapshot.throughput)}/s" : "-"
          out = [
            format(TITLE, location: location, time: now.utc.strftime("%H:%M:%S")) + (live ? "  #{t("top.screen.quits")}" : ""),
            t("top.screen.totals", processed: n(s.processed), failed: n(s.failed), rate: rate, busy: n(s.busy), enqueued: n(s.enqueued)),
            t("top.screen.sets", scheduled: n(s.scheduled), retries: n(s.retries), dead: n(s.dead), processes: n(s.processes)),
            *primaries(snapshot),
            ""
          ]
          room = @height - out.size - 3
          # Queues get what the processes leave, the processes at least half.
          queue_room = (room - [snapshot.processes.size, room / 2].min).clamp(1, nil)
          out << row(t("top.column.queue"), t("top.column.size"), t("top.column.latency"), [])
          out.concat(list(snapshot.queues, queue_room) { |q| queue_lines(q, snapshot) })
          out << ""
          out << row(t("top.column.process"), t("top.column.busy"), t("top.column.rss"), [])
          out.concat(list(snapshot.processes, @height - out.size) { |p| process_row(p, now) })
          out.first(@height).map { |line| Fitting.fit(line, @width) }
        end

        private

        # Each item's line (or lines) in `room` lines; when they do not all
        # fit, the first ones and "... N more", the last item shown perhaps
        # without its second line.
        def list(items, room)
          return ["  #{t("top.none")}"] if items.empty?
          rows = items.map { |item| Array(yield(item)) }
          return rows.flatten if rows.sum(&:size) <= room
          lines = []
          shown = 0
          rows.each do |item_lines|
            space = room - 1 - lines.size
            break if space <= 0
            lines.concat(item_lines.first(space))
            shown += 1
          end
          lines + ["  #{t("top.screen.more", count: items.size - shown)}"]
        end

        # Cluster mode: each primary's share of the queues, on one line.
        def primaries(snapshot)
          placement = snapshot.placement or return []
          ["#{t("top.screen.primaries")}  " + placement.primaries.map { |p| "#{p.address} #{(p.share * 100).round}%" }.join("  ")]
        end

        # The queue's row; under a partitioned queue spread over several
        # primaries (cluster mode), how many partitions each one holds.
        def queue_lines(queue, snapshot)
          line = row(queue.name, n(queue.size), seconds(queue.latency), queue_state(queue, snapshot))
          spread = snapshot.spread_of(queue.name)
          return line if spread.size < 2
          [line, "  #{t("top.screen.partitions")}  " + spread.map { |address, count| "#{address} x#{count}" }.join("  ")]
        end

        # on which primary or primaries (cluster mode), paused, no process
        # works it, throttled (with the slots held).
        def queue_state(queue, snapshot)
          states = []
          spread = snapshot.spread_of(queue.name)
          states << ((spread.size == 1) ? t("top.screen.on_one", address: spread.keys.first) : t("top.screen.on_many", count: spread.size)) unless spread.empty?
          states << t("top.state.paused") if queue.paused?
          states << t("top.state.unworked") if snapshot.worked && !snapshot.worked.include?(queue.name)
          if (throttle = snapshot.throttles[queue.name]) && (limit = throttle.limit)
            words = +t("top.state.throttled")
            words << " #{limit["rate"]}/#{limit["per"]}s" if limit["rate"]
            words << " " << t("top.screen.slots", held: throttle.held, concurrency: limit["concurrency"]) if limit["concurrency"]
            states << words
          end
          states
        end

        def process_row(process, now)
          name = "#{process.hostname}:#{process.pid}#{" [#{process.tag}]" unless process.tag.empty?}"
          state = process.quiet? ? [t("top.state.quiet")] : []
          state = [t("top.state.silent", span: "#{(now - process.beat).round}s")] if process.beat && now - process.beat > 30
          row(name, "#{process.busy}/#{process.concurrency}", "#{(process.rss_kb.to_i / 1024.0).round}MB", state)
        end

        # The name, two numbers, and the state's phrases in the room left.
        def row(name, a, b, states)
          first = (@width - 21 - STATE_ROOM).clamp(10, 50)
          "#{Fitting.pad(name, first - 1)} #{right(a, 9)}#{right(b, 10)}  #{Fitting.phrases(states, @width - first - 21)}".rstrip
        end

        # Right-aligned in the terminal's columns (a Japanese header takes two a
        # character); a longer number pushes on rather than being cut.
        def right(text, width) = " " * [width - Fitting.columns(text), 0].max + text

        def t(key, **values) = @locale.t(key, **values)

        def seconds(value) = (value < 60) ? "#{format("%.1f", value)}s" : "#{(value / 60).floor}m#{(value % 60).round}s"

        def n(value) = @locale.number(value)
      end
    end
  end
end
