# frozen_string_literal: true

require "deckhand/iterable_job/enumerators"

module Sidekiq
  module Job
    module Iterable
      # Sidekiq 7.3's CSV enumerator in drop-in mode, on Deckhand's: rows or
      # batches of an open CSV from a cursor (the row's or the batch's index),
      # as lazy enumerators whose size is the file's row count (headers not
      # counted; nil for a CSV read from a String).
      #
      #   enum = Sidekiq::Job::Iterable::CsvEnumerator.new(CSV.open("users.csv", headers: true))
      #   enum.rows(cursor: 40).each { |row, index| ... }       # from the 41st row
      #   enum.batches(cursor: 2, batch_size: 100).size         # batches in the whole file
      class CsvEnumerator
        def initialize(csv)
          # The message is Sidekiq's, which applications may match on.
          raise ArgumentError, "CsvEnumerator.new takes CSV object" unless defined?(::CSV) && csv.is_a?(::CSV)
          @csv = csv
          @rows = Deckhand::IterableJob::CsvEnumerator.new(csv)
        end

        def rows(cursor:)
          sized(-> { row_count }, @rows.rows(cursor || 0))
        end

        def batches(cursor:, batch_size: 100)
          rows = @rows.batches(cursor || 0, batch_size)
          sized(-> { (count = row_count) && (count + batch_size - 1) / batch_size }, rows)
        end

        private

        def sized(size, enum)
          Enumerator.new(size) { |yielder| enum.each { |item, index| yielder.yield(item, index) } }.lazy
        end

        # Counted from the file (nil when the CSV has none), lines less the header.
        def row_count
          path = @csv.path or return nil
          lines = File.foreach(path).count
          @csv.headers ? lines - 1 : lines
        end
      end
    end
  end
end
