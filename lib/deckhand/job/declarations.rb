# frozen_string_literal: true

module Deckhand
  module Job
    # The class-level declarations of a job: its options, its retry rules and
    # what makes two pushes of a unique job the same. Every Deckhand::Job has
    # them; an Active Job class extends this module to give the Deckhand
    # adapter its options (retry, unique and expiring jobs, ...; the queue
    # stays Active Job's) and its retry rules:
    #
    #   class SyncJob < ApplicationJob
    #     extend Deckhand::Job::Declarations
    #     deckhand_options retry: 5, unique_for: 600, expires_in: 3600
    #     deckhand_unique_args { |args| args.first(1) }
    #     deckhand_retry_in { |count, error, payload| 30 * (count + 1) }
    #   end
    module Declarations
      # Sets options stored in every job this class pushes (queue, retry,
      # retry_for, retry_queue, backtrace, dead, unique_for, unique_until,
      # on_conflict, expires_in, encrypt, pool (another Redis, docs/sharding.md),
      # or your own for middleware);
      # returns the options in effect, inherited from superclasses.
      def deckhand_options(options = nil)
        @deckhand_options = Options.merge(@deckhand_options || {}, options, self) if options
        inherited = superclass.respond_to?(:deckhand_options) ? superclass.deckhand_options : Options.defaults
        @deckhand_options ? inherited.merge(@deckhand_options) : inherited
      end

      # The delay before retry number `count`: a number of seconds, or :discard
      # (drop the job), :kill (straight to the dead set), nil (the default backoff).
      def deckhand_retry_in(&block)
        @deckhand_retry_in = block if block
        @deckhand_retry_in || (superclass.respond_to?(:deckhand_retry_in) ? superclass.deckhand_retry_in : nil)
      end

      # Called with (payload, error) when the job runs out of retries.
      def deckhand_retries_exhausted(&block)
        @deckhand_retries_exhausted = block if block
        @deckhand_retries_exhausted ||
          (superclass.respond_to?(:deckhand_retries_exhausted) ? superclass.deckhand_retries_exhausted : nil)
      end

      # What makes two pushes of a unique job (unique_for) the same job: the
      # block gets the args and returns the part that counts.
      #
      #   deckhand_unique_args { |args| args.first(1) }   # the first argument only
      def deckhand_unique_args(&block)
        @deckhand_unique_args = block if block
        @deckhand_unique_args || (superclass.respond_to?(:deckhand_unique_args) ? superclass.deckhand_unique_args : nil)
      end
    end
  end
end
