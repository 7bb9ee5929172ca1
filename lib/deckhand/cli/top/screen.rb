# frozen_string_literal: true

require_relative "fitting"

module Deckhand
  class CLI
    module Top
      # Lays a Snapshot out as the lines of one terminal screen, cut to its
      # width and height: the totals, then the queues (largest first) and the
      # processes, each list shortened with "... N more" when the screen is
      # too small. In cluster mode a partitioned queue spread over several
      # primaries gets a second line: how many partitions each one holds.
      # Plain text: the command adds the cursor moves. Its words are in TEXT.
      # A queue's state keeps whole phrases at any width ("paused +1"),
      # never a word cut short.
      #
      #   Screen.new(width: 100, height: 30).lines(snapshot, location: "redis://...", now: Time.now)
      class Screen
        TEXT = {
          title: "Deckhand top  %{location}  %{time} UTC", quits: "  (q quits)",
          totals: "Processed %{processed}  Failed %{failed}  Throughput %{rate}  Busy %{busy}  Enqueued %{enqueued}",
          sets: "Scheduled %{scheduled}  Retries %{retries}  Dead %{dead}  Processes %{processes}",
          primaries: "Primaries  ", queue: "QUEUE", process: "PROCESS", size: "SIZE", latency: "LATENCY",
          busy: "BUSY", rss: "RSS", none: "  (none)", more: "  ... %{count} more", partitions: "  partitions  ",
          on_one: "on %{address}", on_many: "on %{count} primaries", paused: "paused", unworked: "no process",
          throttled: "throttled", slots: " %{held}/%{concurrency} slots", quiet: "quiet", silent: "silent %{seconds}s"
        }.freeze
        # Room the state of a queue or process keeps beside the name.
        STATE_ROOM = 24

        def initialize(width:, height:)
          @width = [width, 40].max
          @height = [height, 8].max
        end

        # live: the view refreshes and a key quits it (else one frame, --once).
        def lines(snapshot, location:, now: Time.now, live: true)
          s = snapshot.stats
          rate = snapshot.throughput ? "#{format("%.1f", snapshot.throughput)}/s" : "-"
          out = [
            text(:title, location: location, time: now.utc.strftime("%H:%M:%S")) + (live ? text(:quits) : ""),
            text(:totals, processed: n(s.processed), failed: n(s.failed), rate: rate, busy: n(s.busy), enqueued: n(s.enqueued)),
            text(:sets, scheduled: n(s.scheduled), retries: n(s.retries), dead: n(s.dead), processes: n(s.processes)),
            *primaries(snapshot),
            ""
          ]
          room = @height - out.size - 3
          # Queues get what the processes leave, the processes at least half.
          queue_room = (room - [snapshot.processes.size, room / 2].min).clamp(1, nil)
          out << row(text(:queue), text(:size), text(:latency), [])
          out.concat(list(snapshot.queues, queue_room) { |q| queue_lines(q, snapshot) })
          out << ""
          out << row(text(:process), text(:busy), text(:rss), [])
          out.concat(list(snapshot.processes, @height - out.size) { |p| process_row(p, now) })
          out.first(@height).map { |line| Fitting.fit(line, @width) }
        end

        private

        # Each item's line (or lines) in `room` lines; when they do not all
        # fit, the first ones and "... N more", the last item shown perhaps
        # without its second line.
        def list(items, room)
          return [text(:none)] if items.empty?
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
          lines + [text(:more, count: items.size - shown)]
        end

        # Cluster mode: each primary's share of the queues, on one line.
        def primaries(snapshot)
          placement = snapshot.placement or return []
          [text(:primaries) + placement.primaries.map { |p| "#{p.address} #{(p.share * 100).round}%" }.join("  ")]
        end

        # The queue's row; under a partitioned queue spread over several
        # primaries (cluster mode), how many partitions each one holds.
        def queue_lines(queue, snapshot)
          line = row(queue.name, n(queue.size), seconds(queue.latency), queue_state(queue, snapshot))
          spread = snapshot.spread_of(queue.name)
          return line if spread.size < 2
          [line, text(:partitions) + spread.map { |address, count| "#{address} x#{count}" }.join("  ")]
        end

        # on which primary or primaries (cluster mode), paused, no process
        # works it, throttled (with the slots held).
        def queue_state(queue, snapshot)
          states = []
          spread = snapshot.spread_of(queue.name)
          states << ((spread.size == 1) ? text(:on_one, address: spread.keys.first) : text(:on_many, count: spread.size)) unless spread.empty?
          states << text(:paused) if queue.paused?
          states << text(:unworked) if snapshot.worked && !snapshot.worked.include?(queue.name)
          if (throttle = snapshot.throttles[queue.name]) && (limit = throttle.limit)
            words = +text(:throttled)
            words << " #{limit["rate"]}/#{limit["per"]}s" if limit["rate"]
            words << text(:slots, held: throttle.held, concurrency: limit["concurrency"]) if limit["concurrency"]
            states << words
          end
          states
        end

        def process_row(process, now)
          name = "#{process.hostname}:#{process.pid}#{" [#{process.tag}]" unless process.tag.empty?}"
          state = process.quiet? ? [text(:quiet)] : []
          state = [text(:silent, seconds: (now - process.beat).round)] if process.beat && now - process.beat > 30
          row(name, "#{process.busy}/#{process.concurrency}", "#{(process.rss_kb.to_i / 1024.0).round}MB", state)
        end

        # The name, two numbers, and the state's phrases in the room left.
        def row(name, a, b, states)
          first = (@width - 21 - STATE_ROOM).clamp(10, 50)
          "#{Fitting.pad(name, first - 1)} #{a.rjust(9)}#{b.rjust(10)}  #{Fitting.phrases(states, @width - first - 21)}".rstrip
        end

        def text(key, **values) = format(TEXT.fetch(key), **values)

        def seconds(value) = (value < 60) ? "#{format("%.1f", value)}s" : "#{(value / 60).floor}m#{(value % 60).round}s"

        def n(value) = value.to_i.to_s.reverse.scan(/\d{1,3}/).join(",").reverse
      end
    end
  end
end
