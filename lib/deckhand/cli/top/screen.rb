# frozen_string_literal: true

module Deckhand
  class CLI
    module Top
      # Lays a Snapshot out as the lines of one terminal screen, cut to its
      # width and height: the totals, then the queues (largest first) and the
      # processes, each list shortened with "... N more" when the screen is
      # too small. In cluster mode a partitioned queue spread over several
      # primaries gets a second line: how many partitions each one holds.
      # Plain text: the command adds the cursor moves.
      #
      #   Screen.new(width: 100, height: 30).lines(snapshot, location: "redis://...", now: Time.now)
      class Screen
        def initialize(width:, height:)
          @width = [width, 40].max
          @height = [height, 8].max
        end

        # live: the view refreshes and a key quits it (else one frame, --once).
        def lines(snapshot, location:, now: Time.now, live: true)
          s = snapshot.stats
          rate = snapshot.throughput ? "#{format("%.1f", snapshot.throughput)}/s" : "-"
          out = [
            "Deckhand top  #{location}  #{now.utc.strftime("%H:%M:%S")} UTC#{"  (q quits)" if live}",
            "Processed #{n(s.processed)}  Failed #{n(s.failed)}  Throughput #{rate}  Busy #{n(s.busy)}  Enqueued #{n(s.enqueued)}",
            "Scheduled #{n(s.scheduled)}  Retries #{n(s.retries)}  Dead #{n(s.dead)}  Processes #{n(s.processes)}",
            *primaries(snapshot),
            ""
          ]
          room = @height - out.size - 3
          # Queues get what the processes leave, the processes at least half.
          queue_room = (room - [snapshot.processes.size, room / 2].min).clamp(1, nil)
          out << row("QUEUE", "SIZE", "LATENCY", "")
          out.concat(list(snapshot.queues, queue_room) { |q| queue_lines(q, snapshot) })
          out << ""
          out << row("PROCESS", "BUSY", "RSS", "")
          out.concat(list(snapshot.processes, @height - out.size) { |p| process_row(p, now) })
          out.first(@height).map { |line| line[0, @width] }
        end

        private

        # Each item's line (or lines) in `room` lines; when they do not all
        # fit, the first ones and "... N more", the last item shown perhaps
        # without its second line.
        def list(items, room)
          return ["  (none)"] if items.empty?
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
          lines + ["  ... #{items.size - shown} more"]
        end

        # Cluster mode: each primary's share of the queues, on one line.
        def primaries(snapshot)
          placement = snapshot.placement or return []
          ["Primaries  " + placement.primaries.map { |p| "#{p.address} #{(p.share * 100).round}%" }.join("  ")]
        end

        # The queue's row; under a partitioned queue spread over several
        # primaries (cluster mode), how many partitions each one holds.
        def queue_lines(queue, snapshot)
          line = row(queue.name, n(queue.size), seconds(queue.latency), queue_state(queue, snapshot))
          spread = snapshot.spread_of(queue.name)
          return line if spread.size < 2
          [line, "  partitions  " + spread.map { |address, count| "#{address} x#{count}" }.join("  ")]
        end

        # on which primary or primaries (cluster mode), paused, no process
        # works it, throttled (with the slots held).
        def queue_state(queue, snapshot)
          states = []
          spread = snapshot.spread_of(queue.name)
          states << ((spread.size == 1) ? "on #{spread.keys.first}" : "on #{spread.size} primaries") unless spread.empty?
          states << "paused" if queue.paused?
          states << "no process" if snapshot.worked && !snapshot.worked.include?(queue.name)
          if (throttle = snapshot.throttles[queue.name]) && (limit = throttle.limit)
            text = +"throttled"
            text << " #{limit["rate"]}/#{limit["per"]}s" if limit["rate"]
            text << " #{throttle.held}/#{limit["concurrency"]} slots" if limit["concurrency"]
            states << text
          end
          states.join(", ")
        end

        def process_row(process, now)
          name = "#{process.hostname}:#{process.pid}#{" [#{process.tag}]" unless process.tag.empty?}"
          state = process.quiet? ? "quiet" : ""
          state = "silent #{(now - process.beat).round}s" if process.beat && now - process.beat > 30
          row(name, "#{process.busy}/#{process.concurrency}", "#{(process.rss_kb.to_i / 1024.0).round}MB", state)
        end

        def row(name, a, b, c)
          first = (@width - 30).clamp(10, 50)
          name = (name.size > first - 1) ? "#{name[0, first - 2]}~" : name
          "#{name.ljust(first)}#{a.rjust(9)}#{b.rjust(10)}  #{c}".rstrip
        end

        def seconds(value) = (value < 60) ? "#{format("%.1f", value)}s" : "#{(value / 60).floor}m#{(value % 60).round}s"

        def n(value) = value.to_i.to_s.reverse.scan(/\d{1,3}/).join(",").reverse
      end
    end
  end
end
