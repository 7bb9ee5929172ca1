# frozen_string_literal: true

module Deckhand
  module IterableJob
    # Enumerators for build_enumerator, each yielding `[item, cursor]` with the
    # cursors Sidekiq's helpers use (an offset, or a primary key), so a job
    # resumes on either. Active Record and CSV are never loaded here: pass a
    # relation or a CSV and they are used as given.
    #
    #   def build_enumerator(cursor:) = array_enumerator(%w[a b c], cursor: cursor)  # cursor: the index
    #   def build_enumerator(path, cursor:) = csv_enumerator(CSV.open(path, headers: true), cursor: cursor)
    #   def build_enumerator(cursor:) = active_record_records_enumerator(User.where(active: true), cursor: cursor)
    module Enumerators
      # Items of an Array; the cursor is the item's index.
      def array_enumerator(array, cursor:)
        raise ArgumentError, "array_enumerator takes an Array, got #{array.class}" unless array.is_a?(Array)
        start = deckhand_offset(cursor, "array_enumerator")
        Enumerator.new([array.size - start, 0].max) do |yielder|
          (start...array.size).each { |index| yielder.yield(array[index], index) }
        end
      end

      # Rows of a CSV; the cursor is the row's index (headers not counted).
      def csv_enumerator(csv, cursor:) = CsvEnumerator.new(csv).rows(deckhand_offset(cursor, "csv_enumerator"))

      # Arrays of `batch_size` rows of a CSV; the cursor is the batch's index.
      def csv_batches_enumerator(csv, cursor:, batch_size: 100)
        CsvEnumerator.new(csv).batches(deckhand_offset(cursor, "csv_batches_enumerator"), batch_size)
      end

      # Records of a relation in primary key order, loaded in batches
      # (`batch_size:`, default 1,000); the cursor is the record's id.
      def active_record_records_enumerator(relation, cursor:, **options)
        ActiveRecordEnumerator.new(relation, cursor, options).records
      end

      # Arrays of records; the cursor is the first id of the batch.
      def active_record_batches_enumerator(relation, cursor:, **options)
        ActiveRecordEnumerator.new(relation, cursor, options).batches
      end

      # Relations of `batch_size` records each (for update_all and the like);
      # the cursor is the first id of the batch.
      def active_record_relations_enumerator(relation, cursor:, **options)
        ActiveRecordEnumerator.new(relation, cursor, options).relations
      end

      private

      def deckhand_offset(cursor, helper)
        return 0 if cursor.nil?
        return cursor if cursor.is_a?(Integer) && cursor >= 0
        raise ArgumentError, "#{helper}: the cursor is an offset (a non-negative Integer or nil), got #{cursor.inspect}; " \
          "did the job's enumerator change between runs? Cancel the job and push it again"
      end
    end
  end
end

require_relative "csv_enumerator"
require_relative "active_record_enumerator"
