# frozen_string_literal: true

require_relative "fitting"

module Deckhand
  class CLI
    module Top
      # Lays rows of cells out in columns at a given width. Each column is a
      # Hash: title:, min: (its width at the least), align: (:left or
      # :right), flex: (its share of the room left over, 0 for none) and
      # drop: (columns with the highest number are left out first when the
      # screen is too narrow; nil, never). A cell that is an Array is a list
      # of phrases, shown whole or counted (Fitting.phrases). Every line starts with the row's
      # two marks (">" on the cursor, "*" when selected) and a space.
      #
      #   table = Table.new([{title: "QUEUE", min: 10, flex: 1}, {title: "SIZE", min: 8, align: :right}])
      #   table.header(80)                  # => "  QUEUE ...      SIZE"
      #   table.line(["mailers", "4"], 80)
      class Table
        MARGIN = 3
        GAP = 2

        attr_reader :columns

        def initialize(columns)
          @columns = columns
          @widths = {}
        end

        def header(width) = render(@columns.map { |column| column[:title] }, width, "  ")

        def line(cells, width, marks = "  ") = render(cells, width, marks)

        # Each column's width (nil: left out) at `width`.
        def widths(width)
          @widths[width] ||= begin
            shown = @columns.each_index.to_a
            shown.delete(droppable(shown)) while used(shown) > width && droppable(shown)
            extra = [width - used(shown), 0].max
            flex = shown.sum { |i| @columns[i][:flex].to_i }
            given = 0
            sizes = shown.to_h do |i|
              share = flex.zero? ? 0 : extra * @columns[i][:flex].to_i / flex
              given += share
              [i, @columns[i][:min] + share]
            end
            last = shown.reverse.find { |i| @columns[i][:flex].to_i.positive? }
            sizes[last] += extra - given if last && flex.positive?
            @columns.each_index.map { |i| sizes[i] }
          end
        end

        private

        def render(cells, width, marks)
          parts = widths(width).each_with_index.filter_map do |size, i|
            next unless size
            cell = cells[i]
            cell.is_a?(Array) ? Fitting.pad(Fitting.phrases(cell, size), size) : Fitting.pad(cell.to_s, size, @columns[i][:align] || :left)
          end
          Fitting.fit("#{marks} #{parts.join(" " * GAP)}".rstrip, width)
        end

        def used(shown) = MARGIN + shown.sum { |i| @columns[i][:min] } + GAP * [shown.size - 1, 0].max

        def droppable(shown) = shown.select { |i| @columns[i][:drop] }.max_by { |i| @columns[i][:drop] }
      end
    end
  end
end
