# frozen_string_literal: true

require "json"

module Deckhand
  class Web
    module Helpers
      # Numbers, durations, times and job arguments as people read them, in
      # the page's language (its `locale`).
      #
      #   number(1234567)          # => "1,234,567"
      #   duration(3725)           # => "1 h 2 min"
      #   truncate("x" * 500, 10)  # => "xxxxxxxxx…"
      module Format
        # In the page's language (Helpers::Texts#locale): "1 234 567" in French.
        def number(value) = locale.number(value)

        # "1 job", "2,000 jobs"; jobs(3, "match", "matches") # => "3 matches"
        def jobs(count, noun = "job", plural = "#{noun}s") = "#{number(count)} #{(count.to_i == 1) ? noun : plural}"

        def duration(seconds) = locale.duration(seconds)

        # percent(0.934) # => "93%" ("93 %" in French)
        def percent(share) = locale.t("number.percent", n: (share * 100).round)

        def milliseconds(ms)
          return "–" if ms.nil?
          return "#{ms.round(2)} ms" if ms < 10
          return "#{ms.round(1)} ms" if ms < 1000
          "#{(ms / 1000.0).round(2)} s"
        end

        def memory(kb)
          return "–" unless kb.to_i.positive?
          (kb < 1024 * 1024) ? "#{(kb / 1024.0).round(1)} MB" : "#{(kb / 1024.0 / 1024).round(2)} GB"
        end

        # A <time> element saying how long ago (or how soon); the exact UTC
        # time shows on hover, and on tap or keyboard focus (phones do not hover).
        # tab: -1 keeps it out of the Tab order (a tap still shows the time),
        # for lists where every row would add a stop.
        def relative_time(time, now = fleet_time, tab: 0)
          return "–" if time.nil?
          html(%(<time datetime="#{h(time.utc.iso8601(3))}" title="#{h(utc(time))}" tabindex="#{Integer(tab)}">#{h(ago(time, now))}</time>))
        end

        # For detail pages: the exact UTC time, then how long ago.
        def exact_time(time, now = fleet_time)
          return "–" if time.nil?
          html(%(<time datetime="#{h(time.utc.iso8601(3))}">#{h(utc(time))}</time> <span class="meta">(#{h(ago(time, now))})</span>))
        end

        # Now by Redis' clock, which the times shown were written by (a
        # dashboard's host may be off); this host's where no API is at hand.
        def fleet_time = respond_to?(:api) ? api.now : Time.now

        def utc(time) = locale.time(time)

        def ago(time, now = fleet_time) = locale.ago(time, now)

        def truncate(text, length)
          text = text.to_s
          (text.length > length) ? "#{text[0, length - 1]}…" : text
        end

        # Plain text escaped, its `quoted` parts (a command to run) as <code>.
        def code_spans(text) = html(h(text).gsub(/`([^`]+)`/, '<code>\1</code>'))

        # A class name that a narrow column breaks after each "::" first.
        def class_name(name) = html(h(name).gsub("::", "::<wbr>"))

        # Arguments as JSON, shortened for a list.
        def args_preview(args, length = 120) = truncate(args.map { |arg| JSON.generate(arg) }.join(", "), length)

        def pretty_json(value)
          JSON.pretty_generate(value)
        rescue JSON::GeneratorError, TypeError
          value.inspect
        end
      end
    end
  end
end
