# frozen_string_literal: true

require "deckhand/batch"

module Sidekiq
  # Sidekiq Pro's batch API in drop-in mode, as Deckhand implements it
  # (docs/batches.md): new, description=, on(event, Class, options), jobs { },
  # bid, Sidekiq::Batch::Status.new(bid).
  #
  #   batch = Sidekiq::Batch.new
  #   batch.on(:success, ImportCallbacks, "import_id" => 7)
  #   batch.jobs { rows.each { |row| ImportJob.perform_async(row) } }
  Batch = Deckhand::Batch
end
