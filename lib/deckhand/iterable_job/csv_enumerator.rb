# frozen_string_literal: true

module Deckhand
  module IterableJob
    # Rows or batches of rows of an open CSV, skipping the `start` first ones
    # (CSV reads in order, so skipped rows are read, not processed).
    #
    #   CsvEnumerator.new(CSV.open("users.csv", headers: true)).rows(40)   # from the 41st row on
    #   CsvEnumerator.new(csv).batches(2, 100)                           # from row 200 on, 100 at a time
    class CsvEnumerator
      def initialize(csv)
        unless defined?(::CSV) && csv.is_a?(::CSV)
          raise ArgumentError, "the CSV enumerators take a CSV (CSV.open(path, headers: true)), got #{csv.class}"
        end
        @csv = csv
      end

      # Each row from index `start` on, with its index as the cursor.
      def rows(start)
        Enumerator.new do |yielder|
          @csv.each_with_index { |row, index| yielder.yield(row, index) if index >= start }
        end
      end

      # Each run of `batch_size` rows from index `start` on, with its first index as the cursor.
      def batches(start, batch_size)
        unless batch_size.is_a?(Integer) && batch_size.positive?
          raise ArgumentError, "csv_batches_enumerator: batch_size must be a positive Integer, got #{batch_size.inspect}"
        end
        Enumerator.new do |yielder|
          @csv.each_slice(batch_size).with_index { |rows, index| yielder.yield(rows, index) if index >= start }
        end
      end
    end
  end
end
