# frozen_string_literal: true

module Sidekiq
  # What a job sees when the server stops while it runs (Sidekiq's name for
  # Deckhand's shutdown interrupt), so `rescue Sidekiq::Shutdown` in a job
  # catches it. Not a StandardError: `rescue => e` lets it through.
  #
  #   def perform
  #     rows.each { |row| import(row) }
  #   rescue Sidekiq::Shutdown
  #     checkpoint!
  #     raise
  #   end
  Shutdown = Deckhand::Shutdown unless const_defined?(:Shutdown, false)
end
