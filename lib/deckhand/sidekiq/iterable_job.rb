# frozen_string_literal: true

require_relative "../iterable_job"
require_relative "iterable/cancel_callbacks"

module Sidekiq
  # `include Sidekiq::IterableJob` in drop-in mode: Deckhand's iterable job
  # (the same build_enumerator / each_iteration API and the same it-<jid>
  # progress in Redis, docs/iterable.md) with Sidekiq's class methods.
  #
  #   class BackfillJob
  #     include Sidekiq::IterableJob
  #     sidekiq_options queue: "backfill"
  #     def build_enumerator(ids, cursor:) = array_enumerator(ids, cursor: cursor)
  #     def each_iteration(id, _ids) = Account.find(id).recompute!
  #   end
  module IterableJob
    def self.included(base)
      base.include(Sidekiq::Job)
      base.include(Deckhand::IterableJob)
      base.include(Stopping)
      base.include(Deckhand::DropIn::CancelCallbacks)
      base.extend(PerformRefusal)
    end

    # Sidekiq's default interrupted?: what runs the job (a
    # Sidekiq::Processor) is stopping.
    module Stopping
      def interrupted? = _context ? _context.stopping? : super
    end

    # Sidekiq refuses #perform in an iterable job with a RuntimeError
    # (Deckhand with an ArgumentError): code that rescues it gets Sidekiq's.
    module PerformRefusal
      def method_added(name)
        if name == :perform
          raise "#{self} is an iterable job and must not define #perform: define build_enumerator(*args, cursor:) " \
            "and each_iteration(item, *args) instead"
        end
        super
      end
    end
  end

  module Job
    # `include Sidekiq::Job::Iterable` beside `include Sidekiq::Job` (what
    # Sidekiq::IterableJob does in one line): Deckhand's iterable job.
    module Iterable
      # Sidekiq 7.3's enumerator classes, loaded when named (CSV and Active
      # Record stay unloaded until the application uses them).
      autoload :CsvEnumerator, "deckhand/sidekiq/iterable/csv_enumerator"
      autoload :ActiveRecordEnumerator, "deckhand/sidekiq/iterable/active_record_enumerator"

      def self.included(base)
        base.include(Sidekiq::Job) unless base.include?(Deckhand::Job)
        base.include(Deckhand::IterableJob)
        base.include(Sidekiq::IterableJob::Stopping)
        base.include(Deckhand::DropIn::CancelCallbacks)
        base.extend(Sidekiq::IterableJob::PerformRefusal)
      end
    end
  end
end
