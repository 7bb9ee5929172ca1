# frozen_string_literal: true

module Deckhand
  module IterableJob
    # Walks an Active Record relation in primary key order with Active
    # Record's own batching (find_each, find_in_batches, in_batches), starting
    # at the id in the cursor. Options go to those methods (batch_size, finish,
    # order...). Active Record is whatever the application loaded.
    #
    #   ActiveRecordEnumerator.new(User.where(active: true), 41, {batch_size: 500}).records
    class ActiveRecordEnumerator
      def initialize(relation, cursor, options)
        unless defined?(::ActiveRecord::Relation) && relation.is_a?(::ActiveRecord::Relation)
          raise ArgumentError, "the Active Record enumerators take a relation (User.all, User.where(...)), got #{relation.class}"
        end
        @relation = relation
        @cursor = cursor
        @options = options
      end

      # Each record from the cursor on, with its id as the next cursor.
      def records
        Enumerator.new(-> { @relation.count }) do |yielder|
          @relation.find_each(**@options, start: @cursor) { |record| yielder.yield(record, record.id) }
        end
      end

      # Each batch of records from the cursor on, with its first id as the cursor.
      def batches
        Enumerator.new(-> { batch_count }) do |yielder|
          @relation.find_in_batches(**@options, start: @cursor) { |batch| yielder.yield(batch, batch.first.id) }
        end
      end

      # Each batch as a relation not yet loaded, as Sidekiq yields it: an
      # update_all or delete_all on it costs one statement and no records in
      # memory. Its first id (the cursor) is read with a one-row query, in
      # the batch's order (in_batches' relations come without one).
      def relations
        options = @options.dup
        of = options.delete(:batch_size) || options.delete(:of) || 1000
        last = options[:order].to_s == "desc"
        Enumerator.new(-> { batch_count }) do |yielder|
          @relation.in_batches(**options, of: of, start: @cursor) do |batch|
            yielder.yield(batch, (last ? batch.last : batch.first).id)
          end
        end
      end

      private

      def batch_count
        size = @options[:batch_size] || @options[:of] || 1000
        (@relation.count + size - 1) / size
      end
    end
  end
end
