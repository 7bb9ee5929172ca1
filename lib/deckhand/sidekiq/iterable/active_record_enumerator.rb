# frozen_string_literal: true

require "deckhand/iterable_job/enumerators"

module Sidekiq
  module Job
    module Iterable
      # Sidekiq 7.3's Active Record enumerator in drop-in mode, on Deckhand's:
      # a relation's records, batches of records or batch relations in primary
      # key order from a cursor (an id), each yielded with its cursor. Sizes
      # are Sidekiq's: the record count for records and batches, the batch
      # count for relations. Options go to Active Record's batching.
      #
      #   enum = Sidekiq::Job::Iterable::ActiveRecordEnumerator.new(User.all, cursor: 41, batch_size: 500)
      #   enum.records.each { |user, id| ... }
      #   enum.relations.each { |relation, first_id| relation.update_all(active: true) }   # unloaded relations
      class ActiveRecordEnumerator
        def initialize(relation, cursor: nil, **options)
          @deckhand = Deckhand::IterableJob::ActiveRecordEnumerator.new(relation, cursor, options)
          @relation = relation
          @cursor = cursor
          @options = options
        end

        def records = @deckhand.records

        def batches
          resized(-> { @relation.count }, @deckhand.batches)
        end

        # Relations left unloaded, for update_all and the like.
        def relations
          options = @options.dup
          of = options.delete(:batch_size) || options.delete(:of) || 1000
          Enumerator.new(-> { (@relation.count + of - 1) / of }) do |yielder|
            @relation.in_batches(**options, of: of, start: @cursor) { |batch| yielder.yield(batch, batch.first.id) }
          end
        end

        private

        def resized(size, enum) = Enumerator.new(size) { |yielder| enum.each { |item, cursor| yielder.yield(item, cursor) } }
      end
    end
  end
end
