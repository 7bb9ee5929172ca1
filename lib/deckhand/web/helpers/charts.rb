# frozen_string_literal: true

module Deckhand
  class Web
    module Helpers
      # Small charts drawn on the server: a sparkline is a few numbers, cheaper
      # as inline SVG than as a script per table row.
      #
      #   sparkline([0, 3, 9, 4])   # => <svg class="spark" ...><polyline points="..."/></svg>
      module Charts
        def sparkline(values, width: 120, height: 24)
          return html("") if values.empty?
          max = [values.max.to_f, 1.0].max
          step = (values.size > 1) ? width.to_f / (values.size - 1) : 0.0
          points = values.each_with_index.map do |value, i|
            "#{(i * step).round(1)},#{(height - 1 - ((height - 2) * value / max)).round(1)}"
          end
          html(%(<svg class="spark" viewBox="0 0 #{width} #{height}" width="#{width}" height="#{height}" role="img" ) +
            %(aria-label="trend, peak #{number(max)}"><polyline points="#{points.join(" ")}"/></svg>))
        end

        # Labels for the points of a metrics period, in UTC.
        def point_labels(times, unit)
          pattern = {"1h" => "%H:%M", "4h" => "%H:%M", "24h" => "%d %H:00", "72h" => "%d %H:00"}.fetch(unit, "%Y-%m-%d")
          times.map { |time| time.utc.strftime(pattern) }
        end
      end
    end
  end
end
