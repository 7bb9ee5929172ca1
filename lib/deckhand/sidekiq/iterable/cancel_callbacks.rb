# frozen_string_literal: true

module Deckhand
  module DropIn
    # The callbacks a cancelled Sidekiq iterable job runs in drop-in mode,
    # as Sidekiq runs them: a cancel ends the job as complete, so on_complete
    # runs last, and on_cancel (Sidekiq 8's; 7.3 has none) before it. A job
    # cancelled before its run began starts that run and stops it at once:
    # on_start (or on_resume), on_cancel, on_stop, on_complete; one cancelled
    # while it runs: on_stop, on_cancel, on_complete. Deckhand's own
    # iterable jobs run on_cancel alone (docs/iterable.md).
    #
    #   class ImportJob
    #     include Sidekiq::IterableJob
    #     def on_complete = Import.find(arguments.first).finished!   # after a cancel too, as in Sidekiq
    #   end
    module CancelCallbacks
      private

      def deckhand_cancelled_at_start(state)
        state.first_run? ? on_start : on_resume
        on_cancel if DropIn.version.iterable_on_cancel?
        on_stop
        on_complete
        state.delete
        nil
      end

      def deckhand_cancelled
        on_cancel if DropIn.version.iterable_on_cancel?
        on_complete
      end
    end
  end
end
